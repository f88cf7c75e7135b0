# syntax=docker/dockerfile:1
# Vigil's container image (docs/deployment.md). Three stages:
#   build  - every dependency, the TypeScript compiled into dist/
#   deps   - the production dependencies only (npm ci --omit=dev), no compiler, no tsx
#   vigil  - Node.js, git and ssh for clones, dist/ and the production node_modules, run as `node`
# spec/deployment/image-stages.spec.ts runs the same steps with the local toolchain (the test machine
# cannot pull the base image), then starts the result as CMD and HEALTHCHECK would.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY domain domain
COPY application application
COPY infrastructure infrastructure
COPY projections projections
COPY interfaces interfaces
COPY migrations migrations
COPY packages/vigil-gate packages/vigil-gate
# spec/ and scripts/ are not copied: tsconfig's include list names them, tsc finds nothing there.
RUN npx tsc -p tsconfig.json

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force

FROM ${NODE_IMAGE} AS vigil
# git and ssh: the built-in worker clones repositories; tini: signals reach Node and zombies are reaped.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git openssh-client ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    VIGIL_HOST=0.0.0.0 \
    VIGIL_PORT=3180 \
    VIGIL_DATA_DIR=/var/lib/vigil/data \
    VIGIL_WORK_DIR=/var/lib/vigil/work
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY --from=build /src/dist dist
COPY package.json ./
# `npm start` and `npm run projections:rebuild` work in the container too: their pre-script finds no
# compiler and keeps dist/.
COPY scripts/build-if-typescript.js scripts/
RUN mkdir -p /var/lib/vigil/data /var/lib/vigil/work && chown -R node:node /var/lib/vigil
USER node
EXPOSE 3180
VOLUME ["/var/lib/vigil/data"]
HEALTHCHECK --interval=30s --timeout=10s --start-period=120s --retries=3 CMD ["node", "dist/interfaces/cli/healthcheck.js"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/interfaces/cli/server.js"]
