/**
 * Test files that share a worker (the `shared` project runs with `isolate: false`) must each start from the
 * environment the run started with: a file that sets `process.env.X` would otherwise hand X to the next file.
 * The first file in a worker records the environment; every later file gets exactly that back.
 */
const key = Symbol.for("slack-mcp-agent.test.startEnv");
const holder = globalThis as { [key]?: Record<string, string | undefined> };
const start = (holder[key] ??= { ...process.env });
for (const name of Object.keys(process.env)) if (!(name in start)) delete process.env[name];
for (const [name, value] of Object.entries(start)) if (value !== undefined) process.env[name] = value;
