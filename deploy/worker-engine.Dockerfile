# The worker with a container engine's client, for CONNECTOR__STDIO_RUNTIME=container when the
# worker itself runs in a container: it drives the host's engine through the engine's socket,
# mounted in, to run each stdio MCP server in a container of its own (activities/workloads/
# container-engine.ts, the CLI). Whoever holds that socket can start any container on the host:
# give it to this worker alone, never to the API or the proxy (docs/stdio-runtimes.md).
#   podman (the default): run with -v /run/podman/podman.sock:/run/podman/podman.sock
#     and CONTAINER_HOST=unix:///run/podman/podman.sock (podman then acts as a remote client);
#   Docker: --build-arg ENGINE_PACKAGE=docker.io, -v /var/run/docker.sock:/var/run/docker.sock.
# The gateway of each server runs in this worker and listens on its loopback: run the worker and
# the proxy on the host's network (--network host), as the API and proxy containers of the tests.
# Build from the repository root, after the service image:
#   docker build -f deploy/worker-engine.Dockerfile --build-arg SERVICE_IMAGE=connector-registry -t connector-registry-worker .
# The engine's package is installed on the bare base, before the service is copied in, so that
# the layer is built once and reused for every new version of the code.
ARG BASE_IMAGE=node:24-slim
ARG SERVICE_IMAGE=connector-registry
FROM ${SERVICE_IMAGE} AS service

FROM ${BASE_IMAGE}
ARG ENGINE_PACKAGE=podman
RUN apt-get update && apt-get install -y --no-install-recommends ${ENGINE_PACKAGE} && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production MALLOC_ARENA_MAX=2 HOME=/tmp CONNECTOR__STDIO_RUNTIME=container
COPY --from=service /app /app
USER 1000:1000
CMD ["node", "dist/worker.mjs"]
