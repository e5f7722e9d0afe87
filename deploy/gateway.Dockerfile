# The gateway sidecar: serves one stdio MCP server as Streamable HTTP on port 8080.
# In a managed stdio pod it runs with GATEWAY_SOURCE=attach next to the MCP server container
# (which needs stdin: true, tty: false), POD_NAME / POD_NAMESPACE from the downward API,
# GATEWAY_TARGET_CONTAINER naming that container, a service account allowed to create pods/attach
# on its own pod, and a readiness probe on GET /healthz.
# Not built on the development machine (it has no container engine); build from the repository
# root: docker build -f deploy/gateway.Dockerfile .
FROM node:20-slim

WORKDIR /app
ENV NODE_ENV=production

COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

# Only what the gateway imports: it depends on nothing else of the service.
COPY tsconfig.json ./
COPY core/logger.ts ./core/
COPY gateway/ ./gateway/

USER node
EXPOSE 8080
CMD ["npx", "tsx", "gateway/main.ts"]
