// Generated from the OpenAPI document by `npm run console:types` (stack/console-types.ts): do not edit.
// The console reads these through console/types.ts.
export type paths = Record<string, never>;
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Connector: {
            /** Format: uuid */
            id: string;
            /** @description As given at creation, normalised; in answers, user info and the values of query parameters named like secrets (api_key, token, signature, ...) read *** */
            url: string;
            /** @enum {string} */
            state: "created" | "connecting" | "auth_required" | "connected" | "disconnecting" | "disconnected" | "deleting";
            metadata: {
                [key: string]: string;
            };
            auth_request: components["schemas"]["AuthRequest"] | null;
            disconnect_reason: string | null;
            disconnect_permanent: boolean | null;
            preset: {
                url: string;
            } | null;
            created_at: string;
            updated_at: string;
            /** @description The owner, qualified by where its identity comes from: key:<subject> (an API key), oidc:<subject> (the identity provider) */
            created_by: string | null;
            /** @description The owner's readable name, captured at creation (the token's email or name claim, else the key's subject) */
            created_by_name: string | null;
            /** @description The MCP revision negotiated with the server at the last successful connect (2026-07-28, 2025-11-25, …). */
            protocol_version: string | null;
            /**
             * @description How the last successful connect authenticates to the MCP server. none: it needs no authorization. bearer: the access_token the connect gave. authorization_code: the code flow a user authorized. client_credentials: the service obtains its own tokens with the client credentials the connect gave (SEP-1046). enterprise_managed: with the user's identity assertion the connect gave, exchanged at the enterprise identity provider (SEP-990). workload_identity: with the service's own workload identity token (SEP-1933)
             * @enum {string}
             */
            auth_kind?: "none" | "bearer" | "authorization_code" | "client_credentials" | "enterprise_managed" | "workload_identity";
            /**
             * @description dpop: the connector's token is bound to a key of the connector's own (RFC 9449, SEP-1932); the service presents it with a proof on every request
             * @enum {string}
             */
            token_binding?: "dpop";
            /**
             * @description sse: the MCP server speaks the HTTP+SSE transport of 2024-11-05; the proxy serves it to clients as Streamable HTTP (absent: Streamable HTTP)
             * @constant
             */
            transport?: "sse";
            /** @description The names of the headers the last connect gave for the MCP server (their values are never shown) */
            headers?: string[];
            /** @description The URL variables the last connect bound: url keeps the template, the server is reached with these filled in */
            variables?: {
                [key: string]: string;
            };
            /** @description The owner's rules: tools (globs over the server's tool names) whose calls wait for an approver the rule names. The operator's rules (CONNECTOR__APPROVAL_TOOLS) match first, so these can only add to them; first match wins */
            approval_rules: {
                /** @description Glob over the tool names the rule holds for approval */
                tools: string;
                /** @description Who may approve: key:<subject>, oidc:<subject>, role:<role> (globs allowed) */
                approvers: string[];
                /** @description How long a call waits for a decision before it fails (default CONNECTOR__APPROVAL_TIMEOUT_SECONDS) */
                timeout_seconds?: number;
            }[];
            mcp_url: string;
        };
        ConnectorList: {
            items: components["schemas"]["Connector"][];
            total_count: number;
            /** @description false while a change of this list is being written, or was cut by a crash and not yet repaired (seconds after the worker restarts): total_count may then be off */
            total_count_exact: boolean;
            has_more: boolean;
            next_page_token: string | null;
        };
        CreateConnectorRequest: {
            /**
             * @description MCP server URL: http://, https:// or mcp+stdio://
             * @example https://mcp.example.com/mcp
             */
            url: string;
            client_id?: string;
            client_secret?: string;
            /** @description Display information such as name and description; string values only. */
            metadata?: {
                [key: string]: string;
            };
            /** @default true */
            match_preset: boolean;
            /** @description Tools (globs over the server's tool names) whose calls wait for an approver the rule names; after the operator's rules, first match wins */
            approval_rules?: {
                /** @description Glob over the tool names the rule holds for approval */
                tools: string;
                /** @description Who may approve: key:<subject>, oidc:<subject>, role:<role> (globs allowed) */
                approvers: string[];
                /** @description How long a call waits for a decision before it fails (default CONNECTOR__APPROVAL_TIMEOUT_SECONDS) */
                timeout_seconds?: number;
            }[];
            /**
             * @description The MCP server's transport: streamable-http (the default, or the matched preset's), or sse for a server that still speaks the HTTP+SSE transport of 2024-11-05 (clients reach it through the proxy as Streamable HTTP)
             * @enum {string}
             */
            transport?: "streamable-http" | "sse";
        };
        ConnectRequest: {
            access_token?: string;
            /** Format: uri */
            redirect_url?: string;
            /**
             * @description client_credentials: the service obtains its own token with the client credentials below (SEP-1046), no user involved. enterprise_managed: the service exchanges the user's id_token at the enterprise identity provider for an ID-JAG (RFC 8693) and presents it to the MCP server's authorization server (RFC 7523 JWT bearer grant; SEP-990), no consent page involved. workload_identity: the service presents its own workload identity token (the file CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE names, read anew at every token request) with the JWT bearer grant (SEP-1933); admins only, or a preset that asks for it
             * @enum {string}
             */
            grant?: "client_credentials" | "enterprise_managed" | "workload_identity";
            /** @description With a grant: the service's client at the MCP server's authorization server */
            client_id?: string;
            /** @description With a grant: client_secret_basic or _post, as the authorization server offers; never returned */
            client_secret?: string;
            /** @description With a grant: PKCS #8 PEM key for private_key_jwt (RFC 7523); never returned */
            private_key_pem?: string;
            /**
             * @description The algorithm private_key_pem signs with (default ES256)
             * @enum {string}
             */
            signing_algorithm?: "ES256" | "ES384" | "RS256" | "PS256";
            /** @description Header name → value, as the connector's preset declares them (GET /connectors/presets, fields in header); secret values are sealed, sent only to the MCP server, never returned */
            headers?: {
                [key: string]: string;
            };
            /** @description Variable name → value for the {variables} of the connector's URL (fields in url); each a DNS label or path segment */
            variables?: {
                [key: string]: string;
            };
            /** @description Environment variable name → value for a stdio connector, as its preset declares them (fields in env); sealed, given only to the server's process, never returned */
            env?: {
                [key: string]: string;
            };
            /** @description With grant enterprise_managed: the user's OpenID Connect ID token from the enterprise identity provider; never returned. Alone (no grant): for a connector whose preset declares enterprise_managed. One issued by CONNECTOR__AUTH_ISSUER must be the caller's own (its sub) */
            id_token?: string;
            /**
             * Format: uri
             * @description With grant enterprise_managed: the identity provider's token endpoint (token exchange)
             */
            idp_token_endpoint?: string;
            /** @description With grant enterprise_managed: the service's client at the identity provider */
            idp_client_id?: string;
            /** @description With grant enterprise_managed: that client's secret (sent as client_secret_post), if it has one; never returned */
            idp_client_secret?: string;
        };
        PatchConnectorRequest: {
            /** @description Replaces the connector's approval rules (null or []: none); after the operator's rules, first match wins */
            approval_rules?: {
                /** @description Glob over the tool names the rule holds for approval */
                tools: string;
                /** @description Who may approve: key:<subject>, oidc:<subject>, role:<role> (globs allowed) */
                approvers: string[];
                /** @description How long a call waits for a decision before it fails (default CONNECTOR__APPROVAL_TIMEOUT_SECONDS) */
                timeout_seconds?: number;
            }[] | null;
        };
        ConnectorEvent: {
            seq: number;
            time: string;
            actor: string;
            from: ("created" | "connecting" | "auth_required" | "connected" | "disconnecting" | "disconnected" | "deleting") | null;
            /** @enum {string} */
            to: "created" | "connecting" | "auth_required" | "connected" | "disconnecting" | "disconnected" | "deleting";
            reason: string | null;
            protocol_version?: string;
            /**
             * @description How the last successful connect authenticates to the MCP server. none: it needs no authorization. bearer: the access_token the connect gave. authorization_code: the code flow a user authorized. client_credentials: the service obtains its own tokens with the client credentials the connect gave (SEP-1046). enterprise_managed: with the user's identity assertion the connect gave, exchanged at the enterprise identity provider (SEP-990). workload_identity: with the service's own workload identity token (SEP-1933)
             * @enum {string}
             */
            auth_kind?: "none" | "bearer" | "authorization_code" | "client_credentials" | "enterprise_managed" | "workload_identity";
        };
        ConnectorEventList: {
            items: components["schemas"]["ConnectorEvent"][];
            total_count: number;
            has_more: boolean;
            next_page_token: string | null;
        };
        ConnectorCall: {
            id: string;
            /** @description When the request arrived (RFC 3339) */
            time: string;
            caller: string | null;
            /** @description Mcp-Session-Id of the request, or the one the answer gave */
            session_id: string | null;
            /** @description The request's HTTP method; `TASK` on a row of a task's change of status (`task`), which no request made */
            http_method: string;
            rpc_method: string | null;
            /** @description params.name, else params.uri, of the request; a URI without user info, query or fragment */
            rpc_name: string | null;
            /**
             * @description message: one JSON-RPC message; batch: an array; unreadable: neither; none: no body (GET, DELETE)
             * @enum {string}
             */
            body: "message" | "batch" | "unreadable" | "none";
            /** @description HTTP status; null when the client left before it was answered */
            status: number | null;
            rpc_error_code: number | null;
            duration_ms: number;
            request_bytes: number;
            response_bytes: number;
            /** @description Set on a call made through a toolset: the toolset */
            toolset_id?: string;
            /** @description Set on a call made through a toolset: the member connector it went to (null: none, e.g. tools/list) */
            member_id?: string | null;
            /** @description Set on a tools/call answered with a task: the task it created (the service's own, whose rows carry `task`, or the MCP server's, relayed), which the tasks/* calls name */
            task_id?: string;
            /** @description Set on a row of a task the service owns (MCP Tasks): one per change of its status, written once its workflow holds it; rpc_method is tools/call, rpc_name the tool, caller who started it; no HTTP status, duration or bytes */
            task?: {
                task_id: string;
                /**
                 * @description The status the task moved to (its first row: the status it was created in)
                 * @enum {string}
                 */
                status: "working" | "input_required" | "completed" | "failed" | "cancelled";
                /** @description Which change of the task this is, counted from its creation (1); where the server owns it (observed), counted from the first status seen */
                change: number;
                /** @description Who made the change, where someone did: the approver who decided, the caller who cancelled */
                by: string | null;
                /**
                 * @description Set where the change was an approval: pending (held at creation), approved, denied or expired
                 * @enum {string}
                 */
                approval?: "pending" | "approved" | "denied" | "expired";
                /** @description Set on a failure whose outcome is unknown (its worker died mid-call, the tool not idempotent) */
                unknown_outcome?: boolean;
                /** @description Set where the database refused writes for longer than a task keeps unwritten changes (1,000): how many changes just before this one have no row */
                skipped?: number;
                /**
                 * @description Set where the MCP server owns the task: a status the proxy saw in the server's answer to a relayed tools/call or tasks/* request (a change between two of them is not seen)
                 * @constant
                 */
                observed?: true;
            };
        };
        ConnectorCallList: {
            items: components["schemas"]["ConnectorCall"][];
            has_more: boolean;
            next_page_token: string | null;
        };
        ConnectorTask: {
            task_id: string;
            tool: string;
            /** @description Who started it (the caller subject); null with caller authentication off */
            caller: string | null;
            /** @enum {string} */
            status: "working" | "input_required" | "completed" | "failed" | "cancelled";
            created_at: string;
            updated_at: string;
            /** @description The toolset whose MCP path it was started on; null: the connector's own */
            toolset_id: string | null;
            /** @description Present when a rule held the call for approval (CONNECTOR__APPROVAL_TOOLS): where it stands and who decided */
            approval?: {
                /** @enum {string} */
                state: "pending" | "approved" | "denied" | "expired";
                decided_by: string | null;
                decided_at: string | null;
            };
            /** @description Its statuses in order, from its creation (at most 32: the first, then the latest) */
            history?: {
                /** @enum {string} */
                status: "working" | "input_required" | "completed" | "failed" | "cancelled";
                at: string;
                /** @description Who made the change, where someone did: the approver who decided, the caller who cancelled */
                by?: string;
                /**
                 * @description Set where the change was an approval: pending (held at creation), approved, denied or expired
                 * @enum {string}
                 */
                approval?: "pending" | "approved" | "denied" | "expired";
            }[];
            /** @description failed because its worker died mid-call and the tool is not idempotent: whether the server acted is unknown */
            unknown_outcome: boolean;
        };
        ConnectorTaskList: {
            items: components["schemas"]["ConnectorTask"][];
            has_more: boolean;
            next_page_token: string | null;
        };
        ToolApproval: {
            task_id: string;
            connector_id: string;
            tool: string;
            /** @description The call's arguments, shown to its approvers only */
            arguments: {
                [key: string]: unknown;
            };
            /** @description Who made the call (the caller subject) */
            requested_by: string | null;
            requested_at: string;
            /** @enum {string} */
            state: "pending" | "approved" | "denied" | "expired";
            expires_at: string;
            decided_by: string | null;
            decided_at: string | null;
            approvers: string[];
        };
        ApprovalDecision: {
            /** @enum {string} */
            decision: "approve" | "deny";
        };
        Preset: {
            url: string;
            metadata: {
                [key: string]: string;
            };
            stdio?: {
                image: string;
            };
            runnable: boolean;
            reason?: string;
            /**
             * @description env: CONNECTOR__PRESETS; registry: synced from CONNECTOR__REGISTRY_URL
             * @enum {string}
             */
            source: "env" | "registry";
            /** @description The registry server's version; null for env presets */
            version: string | null;
            /** @description Registry presets: the server name (the path parameter of approve) */
            name?: string;
            /** @description The registry marks the server deprecated */
            deprecated?: boolean;
            /** @description Registry stdio presets: whether an admin approved this version (it runs only then) */
            approved?: boolean;
            /** @description What a connect supplies: access_token (in connect), headers (in header: the connect body's headers), URL variables (in url: its variables); for a preset that cannot run, what keeps it from running */
            fields?: {
                name: string;
                /** @enum {string} */
                in: "connect" | "url" | "header" | "env";
                secret: boolean;
                description?: string;
                required?: boolean;
                /** @description Never for a secret */
                default?: string;
            }[];
            /** @description Registry stdio presets: what will run (what an approval pins) */
            run?: {
                registry_type: string;
                identifier: string;
                version: string | null;
                registry_base_url: string | null;
                command: string[] | null;
                args: string[];
                /** @description The registry's values; a secret reads (secret), the connect's token (the connect's access_token) */
                env: {
                    [key: string]: string;
                };
            };
            /** @description Registry stdio presets: the SHA-256 of `run` (and of secret values) an approval pins */
            digest?: string;
            /** @description Registry stdio presets whose approval no longer counts: what changed since, in words */
            changes?: string[];
            approved_by?: string;
            approved_at?: string;
        };
        PresetList: {
            items: components["schemas"]["Preset"][];
        };
        Problem: {
            type: string;
            title: string;
            status: number;
            detail?: string;
            errors?: {
                path: string;
                message: string;
            }[];
        };
        /** @description The authorization on offer: while auth_required, or while connected when the MCP server asked for more scope (a step-up). code: a URL a user opens; assertion: an enterprise-managed grant's identity assertion expired or was refused, a connect with a fresh id_token brings the connector back */
        AuthRequest: components["schemas"]["CodeAuthRequest"] | components["schemas"]["AssertionAuthRequest"];
        Caller: {
            /** @description The qualified owner (key:<subject> or oidc:<subject>); null with caller authentication off */
            subject: string | null;
            /** @description A readable name (the token's email or name claim, else the subject) */
            name: string | null;
            /** @description Sees and acts on every owner's connectors (always true with caller authentication off) */
            admin: boolean;
            /** @description False when the service runs without caller authentication */
            authenticated: boolean;
        };
        Toolset: {
            /** Format: uuid */
            id: string;
            name: string;
            description: string;
            members: {
                connector_id: string;
                prefix: string;
                tools: {
                    allow: string[];
                    deny: string[];
                };
            }[];
            access: components["schemas"]["ToolsetAccessRule"][];
            /** @description Tools (globs over the prefixed names, <prefix>__<tool>) whose calls through the toolset wait for a named approver; the operator's rules and the member connector's own rules apply too, before these */
            approval_rules: {
                /** @description Glob over the tool names the rule holds for approval */
                tools: string;
                /** @description Who may approve: key:<subject>, oidc:<subject>, role:<role> (globs allowed) */
                approvers: string[];
                /** @description How long a call waits for a decision before it fails (default CONNECTOR__APPROVAL_TIMEOUT_SECONDS) */
                timeout_seconds?: number;
            }[];
            /** @description The owner: key:<subject> or oidc:<subject> */
            created_by: string | null;
            created_at: string;
            updated_at: string;
            mcp_url: string;
        };
        ToolsetList: {
            items: components["schemas"]["Toolset"][];
            total_count: number;
            has_more: boolean;
            next_page_token: string | null;
        };
        CreateToolsetRequest: {
            name: string;
            description?: string;
            members: {
                connector_id: string;
                /** @description Default: a slug of the connector's metadata.name, else of its id */
                prefix?: string;
                tools?: {
                    /** @description Glob patterns over the member's own tool names; absent: every tool */
                    allow?: string[];
                    /** @description Glob patterns over the member's own tool names, applied after allow */
                    deny?: string[];
                };
            }[];
            access?: components["schemas"]["ToolsetAccessRule"][];
            /** @description Tools (globs over the prefixed names, <prefix>__<tool>) whose calls through the toolset wait for a named approver; the operator's rules and the member connector's own rules apply too, before these */
            approval_rules?: {
                /** @description Glob over the tool names the rule holds for approval */
                tools: string;
                /** @description Who may approve: key:<subject>, oidc:<subject>, role:<role> (globs allowed) */
                approvers: string[];
                /** @description How long a call waits for a decision before it fails (default CONNECTOR__APPROVAL_TIMEOUT_SECONDS) */
                timeout_seconds?: number;
            }[];
        };
        PatchToolsetRequest: {
            name?: string;
            description?: string | null;
            members?: {
                connector_id: string;
                /** @description Default: a slug of the connector's metadata.name, else of its id */
                prefix?: string;
                tools?: {
                    /** @description Glob patterns over the member's own tool names; absent: every tool */
                    allow?: string[];
                    /** @description Glob patterns over the member's own tool names, applied after allow */
                    deny?: string[];
                };
            }[];
            access?: components["schemas"]["ToolsetAccessRule"][] | null;
            approval_rules?: {
                /** @description Glob over the tool names the rule holds for approval */
                tools: string;
                /** @description Who may approve: key:<subject>, oidc:<subject>, role:<role> (globs allowed) */
                approvers: string[];
                /** @description How long a call waits for a decision before it fails (default CONNECTOR__APPROVAL_TIMEOUT_SECONDS) */
                timeout_seconds?: number;
            }[] | null;
        };
        /** @description A user opens authorization_endpoint in a browser before expires_at */
        CodeAuthRequest: {
            /** @constant */
            type: "code";
            authorization_endpoint: string;
            expires_at: string;
        };
        /** @description Connect again with grant enterprise_managed and a fresh id_token (no URL to open) */
        AssertionAuthRequest: {
            /** @constant */
            type: "assertion";
            /** @constant */
            needs: "id_token";
            /** @description The iss of the ID token that expired or was refused: where to get a fresh one (null: it named none) */
            issuer: string | null;
            message: string;
        };
        ToolsetAccessRule: {
            callers: string[];
            /** @description Glob patterns over the prefixed tool names (<prefix>__<tool>) */
            allow: string[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
