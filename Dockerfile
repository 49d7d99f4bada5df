# One image for the API and the worker (docker-compose.yml picks the command).
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
RUN npx tsc -p tsconfig.json
ENV HOST=0.0.0.0 PORT=8055 NODE_ENV=production
EXPOSE 8055
CMD ["node", "dist/src/server.js"]
