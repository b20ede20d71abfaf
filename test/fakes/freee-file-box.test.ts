import { expect, it } from "vitest";
import { useFreeeFake } from "../support/freee-fake";

/** The strict freee fake's file box (POST /api/1/receipts) reads a request as freee's schema says: a form with the file. */
const freee = useFreeeFake();
const post = (body: string | FormData, headers: Record<string, string> = {}) =>
  freee.call("POST", "/api/1/receipts", typeof body === "string" ? { raw: body, headers } : { form: body, headers });

it("a JSON body is refused with freee's 400, and so is a form without the file; a form with it is a receipt", async () => {
  const json = await post(JSON.stringify({ company_id: 101, description: "x" }), { "content-type": "application/json" });
  expect(json.status).toBe(400);
  expect(JSON.stringify(json.body)).toContain("multipart/form-data");

  const noFile = new FormData();
  noFile.set("company_id", "101");
  const missing = await post(noFile);
  expect(missing.status).toBe(400);
  expect(JSON.stringify(missing.body)).toContain("receipt は必須です");

  const form = new FormData();
  form.set("company_id", "101");
  form.set("receipt_metadatum_amount", "5250");
  form.set("document_type", "photo");
  form.set("receipt", new Blob([new Uint8Array([1, 2, 3])], { type: "application/pdf" }), "r.pdf");
  const badEnum = await post(form);
  expect(badEnum.status).toBe(400);

  form.set("document_type", "receipt");
  const created = await post(form);
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ receipt: { mime_type: "application/pdf", origin: "public_api", receipt_metadatum: { amount: 5250 } } });
  expect(freee.fake.apiRequests("/api/1/receipts").at(-1)?.files).toMatchObject({ receipt: { name: "r.pdf", size: 3 } });
});
