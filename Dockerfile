# Signet as a container image: the TypeScript source run by Node 24's type stripping (no
# build step), production dependencies only, a non-root user. See docs/deployment.md,
# "Containers".
#
#   docker build -t signet .
#   docker run -p 3000:3000 -v signet-data:/var/lib/signet signet              # embedded database
#   docker run -p 3000:3000 -e DATABASE_URL=postgres://… -e REDIS_URL=redis://… signet serve --role api
FROM node:24-slim

ENV NODE_ENV=production
WORKDIR /app

# Dependencies first, so a change to the source does not reinstall them. The project is an
# npm workspace: the lockfile names packages/client, and its package.json is copied so that
# the install is exactly the lockfile's (nothing the server runs imports the client). No
# production dependency has an install script.
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# package.json is read at run time too (signet --version, the OpenAPI document).
COPY bin/ bin/
COPY src/ src/

# The code belongs to root and is read-only to the process; the only place it writes is the
# embedded database's folder (used when DATABASE_URL is unset). `signet` on the PATH, for
# `docker exec … signet key create …`.
RUN mkdir -p /var/lib/signet \
  && chown node:node /var/lib/signet \
  && ln -s /app/bin/signet.js /usr/local/bin/signet

ENV HOST=0.0.0.0 \
  PORT=3000 \
  SIGNET_DATA_DIR=/var/lib/signet

# The image's `node` user (uid 1000), by number so that Kubernetes' runAsNonRoot can verify it.
USER 1000:1000

EXPOSE 3000

# Liveness of the main listener, with Node's own fetch (slim images have no curl). A process
# without one (serve --role worker) needs SIGNET_METRICS_PORT and a check against that port
# instead: compose.yaml shows it.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# serve answers SIGTERM by draining: stop accepting, finish requests and webhook attempts in
# flight (within SIGNET_SHUTDOWN_TIMEOUT), hand back claimed deliveries, exit 0.
STOPSIGNAL SIGTERM

# `serve` migrates first (again: serve also migrates, under an advisory lock, so replicas
# starting together apply each migration once); any other command runs as given, e.g.
# `docker run --rm … signet key create --workspace …`. exec: Node is PID 1 and gets SIGTERM.
ENTRYPOINT ["/bin/sh", "-c", "set -e; if [ \"$1\" = serve ]; then node /app/bin/signet.js migrate; fi; exec node /app/bin/signet.js \"$@\"", "signet"]
CMD ["serve"]
