// The headers and URL variables a connector's preset asks a connect for (GET /presets, `fields`
// in header and in url): one input each, a password field for a secret, sent with either connect
// button. Nothing is shown of what the last connect gave but the names the record lists.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api';
import type { Connector, Page, Preset } from '../types';

type Field = NonNullable<Preset['fields']>[number];

export interface UpstreamInputs {
  fields: Field[];
  /** The preset connects with enterprise-managed authorization: a connect gives the user's id_token. */
  assertion: boolean;
  values: Record<string, string>;
  set: (key: string, value: string) => void;
  /** The connect body's headers and variables, with only what was filled in. */
  body: () => { headers?: Record<string, string>; variables?: Record<string, string> };
}

const keyOf = (f: Field) => `${f.in}:${f.name}`;

export function useUpstreamInputs(api: Api, connector: Connector): UpstreamInputs {
  const [fields, setFields] = useState<Field[]>([]);
  const [assertion, setAssertion] = useState(false);
  const [values, setValues] = useState<Record<string, string>>({});
  const presetUrl = connector.preset?.url;
  useEffect(() => {
    if (!presetUrl) return;
    api.get<Page<Preset>>('/api/v1/connectors/presets').then((p) => {
      const preset = p.items.find((item) => item.url === presetUrl);
      // The env field named access_token is the connect's token, which the token field gives.
      setFields((preset?.fields ?? []).filter((f) => f.in === 'header' || f.in === 'url' || (f.in === 'env' && f.name !== 'access_token')));
      setAssertion((preset?.fields ?? []).some((f) => f.in === 'connect' && f.name === 'id_token'));
    }, () => setFields([]));
  }, [api, presetUrl]);
  const pick = (kind: Field['in']) => Object.fromEntries(fields.filter((f) => f.in === kind && values[keyOf(f)]).map((f) => [f.name, values[keyOf(f)]!]));
  return {
    fields, values, assertion,
    set: (key, value) => setValues({ ...values, [key]: value }),
    body: () => {
      const headers = pick('header');
      const variables = pick('url');
      const env = pick('env');
      return { ...(Object.keys(headers).length ? { headers } : {}), ...(Object.keys(variables).length ? { variables } : {}), ...(Object.keys(env).length ? { env } : {}) };
    },
  };
}

const FIELD_LABEL: Record<Field['in'], (name: string) => string> = {
  url: (name) => `URL variable ${name}`, header: (name) => `Header ${name}`, env: (name) => `Environment variable ${name}`, connect: (name) => name,
};

export function UpstreamFields({ inputs }: { inputs: UpstreamInputs }) {
  if (!inputs.fields.length) return null;
  return (
    <fieldset class="upstream-inputs">
      <legend>What the MCP server asks for</legend>
      {inputs.fields.map((f) => {
        const key = keyOf(f);
        const id = `upstream-${f.in}-${f.name}`;
        return (
          <p key={key}>
            <label for={id}>{FIELD_LABEL[f.in](f.name)}{f.required ? ' (required)' : ''}</label>
            {f.secret
              ? <input id={id} type="password" autocomplete="off" value={inputs.values[key] ?? ''} onInput={(e) => inputs.set(key, (e.target as HTMLInputElement).value)} />
              : <input id={id} type="text" autocomplete="off" placeholder={f.default ?? ''} value={inputs.values[key] ?? ''} onInput={(e) => inputs.set(key, (e.target as HTMLInputElement).value)} />}
            {f.description && <small> {f.description}</small>}
          </p>
        );
      })}
    </fieldset>
  );
}
