import { brotliDecompressSync } from "node:zlib";

/**
 * The shape of lib/freee/openapi/packed-requests.ts (written by scripts/vendor-freee-openapi.ts): per API an index
 * of its operations in plain text, and their parameters, bodies and component schemas compressed, inflated once
 * per API on first use. Every Lambda that routes or checks a freee call bundles it; the compression is what keeps
 * the 327 operations of five APIs inside each bundle's 1 MiB.
 */
export interface PackedSource {
  repository: string;
  commit: string;
  date: string;
  file?: string;
  licence: string;
}

export interface PackedApi {
  prefix: string;
  source: PackedSource;
  /** `[method, path, operationId, summary]`, the path with the API's prefix. */
  operations: ReadonlyArray<readonly [string, string, string, string]>;
}

export interface PackedDetails {
  operations: Array<{ parameters: unknown[]; requestBody?: unknown }>;
  schemas: Record<string, unknown>;
}

export function inflate(base64: string): PackedDetails {
  return JSON.parse(brotliDecompressSync(Buffer.from(base64, "base64")).toString("utf8")) as PackedDetails;
}
