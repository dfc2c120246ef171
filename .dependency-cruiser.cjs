// The layers of the service, and the directions an import may take between them. Read top to bottom:
//
//   cli        the commands (serve, import, export, token, user, mcp); the top: nothing imports it
//   server     HTTP (Fastify): routes, replies, the admin web application's files, the MCP route
//   mcp        the MCP server's tools: calls of the admin API through the SDK (src/client), never the store
//   auth       who is calling: API tokens, admin sessions, passwords, sign-in limits
//   budget     the write budget (and the limiters the sign-in limits count in)
//   graphql    the schemas and their resolvers: arguments in, a service call, the result out
//   services   what the API does (models, records, tokens, workspaces, webhooks), on the store's interface
//   webhooks   signing, the SSRF guard, one delivery attempt, the delivery worker (started by serve)
//   store      persistence: one interface (store.ts), sqlite/ and postgres/ behind it
//   domain     the product's rules: field types, record data, merge patch, error codes; no I/O
//   shared     pure helpers the service, the SDK and the admin web application all use; no I/O, no Node
//
// An import goes down, never up (a layer may skip layers below it, except where a rule says otherwise).
// A type or helper two layers share lives in the lower one (or in domain/shared), never in the upper one.
// src/client (the SDK) and src/admin-ui (the browser application) stand apart: they reach the service over HTTP.
// src/mcp stands on the SDK: the CLI runs it over stdio, the server's /mcp route hands it a fetch into its own /graphql.
// src/ids.ts (time-ordered ids) is a leaf that the store and the layers above it may use (GraphQL has no need of it).
//
// `npm run lint:layers` checks this (part of `npm test`); `npx depcruise src --config --output-type text` lists
// every import it saw.

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'shared-is-pure',
      comment:
        'src/shared is compiled for the browser and imported by every other part: it imports nothing but itself ' +
        '(no Node modules, no packages, no other layer).',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { pathNot: '^src/shared/' },
    },
    {
      name: 'domain-imports-only-shared',
      comment:
        'The domain is the pure core: rules over values, no I/O. It imports only src/shared (no packages, no Node ' +
        'modules, no layer above it).',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { pathNot: '^src/(domain|shared)/' },
    },
    {
      name: 'store-not-to-upper-layers',
      comment:
        'The store persists what the layers above hand it; it knows the domain, never who calls it. A type the ' +
        'store shares with a layer above (a limiter factory, an entity) is declared in the store or the domain.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/(services|auth|budget|graphql|server|cli|client|admin-ui|mcp)/' },
    },
    {
      name: 'services-not-to-upper-layers',
      comment:
        'Services are called by the API (graphql) and the CLI, and call the store; auth makes their Actor. They never ' +
        'reach up into auth, the budget, GraphQL or HTTP: what they need from there is passed in (an Actor, say). ' +
        "The API token's form (services/tokens.ts) is here because the token service issues tokens and auth checks them.",
      severity: 'error',
      from: { path: '^src/services/' },
      to: { path: '^src/(auth|budget|graphql|server|cli|client|admin-ui|mcp)/' },
    },
    {
      name: 'graphql-reaches-data-through-services',
      comment:
        'Resolvers are thin: arguments in, a service call, the result out. GraphQL does not open the store ' +
        '(entities it returns are domain types), nor know about auth, the budget or HTTP.',
      severity: 'error',
      from: { path: '^src/graphql/' },
      to: { path: '^src/(store|auth|budget|server|cli|client|admin-ui|mcp)/|^src/ids\\.ts$' },
    },
    {
      name: 'webhooks-not-to-upper-layers',
      comment:
        'Webhooks (signing, the SSRF guard, sending, the delivery worker) work on the store and the domain; the ' +
        'webhook service uses signing and the guard, and serve starts the worker. Nothing here reaches up.',
      severity: 'error',
      from: { path: '^src/webhooks/' },
      to: { path: '^src/(services|auth|budget|graphql|server|cli|client|admin-ui)/' },
    },
    {
      name: 'budget-not-to-upper-layers',
      comment:
        'The write budget counts; the server charges it and the sign-in limits count in its limiters. It may read ' +
        "the store's shared limiters, nothing above.",
      severity: 'error',
      from: { path: '^src/budget/' },
      to: { path: '^src/(auth|services|graphql|server|cli|client|admin-ui|mcp)/' },
    },
    {
      name: 'auth-not-to-upper-layers',
      comment: 'Auth turns a credential into an Actor (a services type) from the store; the server calls it, never the reverse.',
      severity: 'error',
      from: { path: '^src/auth/' },
      to: { path: '^src/(graphql|server|cli|client|admin-ui|mcp)/' },
    },
    {
      name: 'server-not-to-cli',
      comment: 'The CLI starts the server; the server does not know the commands. It serves the admin application as files.',
      severity: 'error',
      from: { path: '^src/server/' },
      to: { path: '^src/(cli|client|admin-ui)/' },
    },
    {
      name: 'mcp-through-the-client',
      comment:
        'The MCP tools are the same calls of the admin API the CLI makes (DESIGN.md): they use the SDK and ' +
        'src/shared, never the store, the services or GraphQL, so the role, the validation and the write budget ' +
        "are the API's wherever the MCP server runs (stdio, or the /mcp route).",
      severity: 'error',
      from: { path: '^src/mcp/' },
      to: { path: '^src/', pathNot: '^src/(mcp|client|shared)/' },
    },
    {
      name: 'mcp-route-only',
      comment:
        'Of the server, only the MCP route (mcp-route.ts) uses src/mcp: the rest of the server never reaches the ' +
        'SDK, even through the MCP layer.',
      severity: 'error',
      from: { path: '^src/server/', pathNot: '^src/server/mcp-route\\.ts$' },
      to: { path: '^src/mcp/' },
    },
    {
      name: 'client-talks-http',
      comment:
        "The SDK is a separate program that talks to the service over HTTP (the CLI's import and export use it): " +
        'it imports only itself and src/shared.',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: '^src/(client|shared)/' },
    },
    {
      name: 'admin-ui-talks-http',
      comment:
        "The admin web application runs in the browser and talks HTTP. Besides src/shared it uses the SDK's " +
        'browser-safe modules (CSV cells and parsing, merge diff, API types), compiled with it by ' +
        'scripts/build-admin-ui.mjs; nothing else of the server or the SDK.',
      severity: 'error',
      from: { path: '^src/admin-ui/' },
      to: { path: '^src/', pathNot: '^src/(admin-ui|shared)/|^src/client/(cells|csv|diff|types)\\.ts$' },
    },
    {
      name: 'browser-modules-without-node',
      comment:
        "Modules compiled for the browser (tsconfig.admin-ui.json) cannot use Node modules. The SDK's modules the " +
        'admin application imports say so in their header.',
      severity: 'error',
      from: { path: '^src/(admin-ui|shared)/|^src/client/(cells|csv|diff|types)\\.ts$' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'ids-is-a-leaf',
      comment: 'Time-ordered ids: node:crypto and nothing else, so every server-side layer may use it without a cycle.',
      severity: 'error',
      from: { path: '^src/ids\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'no-circular',
      comment:
        'Modules that import each other at run time cannot be read (or loaded, or tested) one at a time. A cycle ' +
        'made only of `import type` is still let through (it is erased by the compiler), for the two left: ' +
        'src/client/model-records.ts (a Pick<ContentClient, ...>) and src/admin-ui/record-field-relation.ts (the ' +
        "widget types of record-fields.ts). Once they name what they use in a leaf module, as the SDK's loaders do " +
        '(src/client/load-types.ts: LoaderClient), drop viaOnly so that type-only cycles are errors too.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'src-not-to-tests',
      comment: 'The product does not import its tests, benchmarks or scripts.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
  },
};
