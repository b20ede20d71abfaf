import { FatalConfigError } from "../errors/taxonomy";

/** Environment access that fails loudly: a missing setting is a FatalConfigError at cold start, never "". */
export type Env = Readonly<Record<string, string | undefined>>;

export function requireEnv(name: string, env: Env = process.env): string {
  const value = env[name];
  if (value === undefined || value.trim() === "") {
    throw new FatalConfigError(`missing required setting ${name}`, { details: { setting: name } });
  }
  return value;
}

export function optionalEnv(name: string, env: Env = process.env): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === "" ? undefined : value;
}

export function intEnv(name: string, fallback: number, env: Env = process.env): number {
  const raw = optionalEnv(name, env);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new FatalConfigError(`setting ${name} must be a non-negative integer, got "${raw}"`, {
      details: { setting: name },
    });
  }
  return value;
}

export function listEnv(name: string, env: Env = process.env): string[] {
  const raw = optionalEnv(name, env);
  return raw === undefined ? [] : raw.split(",").map((s) => s.trim()).filter((s) => s !== "");
}
