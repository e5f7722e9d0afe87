# The gateway sidecar: serves one stdio MCP server as Streamable HTTP on port 8080.
# In a managed stdio pod it runs with GATEWAY_SOURCE=attach next to the MCP server container
# (which needs stdin: true, tty: false), POD_NAME / POD_NAMESPACE from the downward API,
# GATEWAY_TARGET_CONTAINER naming that container, GATEWAY_SECRET (from the workload's Secret: MCP
# requests without it in x-connector-gateway-secret get 401), a service account allowed to create
# pods/attach on its own pod (and no other: see deploy/rbac/README.md), and a readiness probe on
# GET /healthz (open).
# The pod runs it as a non-root user on a read-only root filesystem: plain node, no npx cache.
# Build from the repository root: docker build -f deploy/gateway.Dockerfile -t connector-registry-gateway .
# Every RUN step is one that `npm test` runs too (test/deploy/images.test.ts).
# The base: the official Node image by default; `npm run images` passes a local one made from
# Debian packages and node@24 where no registry is reachable (stack/toolchain/build-images.ts).
ARG BASE_IMAGE=node:24-slim
FROM ${BASE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM ${BASE_IMAGE}
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
# All of dist/ (a few MB): dist/gateway.mjs imports chunks that esbuild shares between the entry
# points, whose names change with the code (a gateway.mjs alone failed with ERR_MODULE_NOT_FOUND).
COPY --from=build /app/dist ./dist
USER 1000:1000
EXPOSE 8080
# A young generation of 2 MB instead of V8's 32: about 30 MB less resident memory per workload,
# at no cost seen at a stdio server's pace (npm run bench:gateway runs the gateway with this CMD).
CMD ["node", "--max-semi-space-size=2", "dist/gateway.mjs"]
