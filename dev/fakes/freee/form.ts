import { createHash } from "node:crypto";

/** A file of a multipart request, as the fake keeps it (size and digest, not the bytes). */
export type FormFiles = Record<string, { name: string; type: string; size: number; sha256: string }>;

/** A multipart/form-data body as freee reads it: text fields, and files by field (size and digest kept). */
export async function readForm(request: Request): Promise<{ fields: Record<string, string>; files: FormFiles } | "malformed"> {
  let data: FormData;
  try {
    data = await request.formData();
  } catch (err) {
    if (err instanceof TypeError) return "malformed";
    throw err;
  }
  const fields: Record<string, string> = {};
  const files: FormFiles = {};
  for (const [key, value] of data.entries()) {
    if (typeof value === "string") fields[key] = value;
    else {
      const bytes = new Uint8Array(await value.arrayBuffer());
      files[key] = { name: value.name, type: value.type, size: bytes.byteLength, sha256: createHash("sha256").update(bytes).digest("hex") };
    }
  }
  return { fields, files };
}
