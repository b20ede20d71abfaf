import { describe, expect, it } from "vitest";
import { checkRequest } from "../../../lib/freee/openapi/validator";
import { checkSteps } from "../../../lib/model/process-steps";
import { validateSteps } from "../../../lib/steps/validate-steps";
import { describeUpload } from "../../../lib/preview/upload";
import { taskInputFromMessage } from "../../../lib/ingress/message-filter";
import { normaliseToolInput } from "../../../lib/freee/tools/normalise";
import { getTool } from "../../../lib/freee/tools/registry";
import { UPLOAD_RECEIPT_TOOL } from "../../../lib/freee/tools/summaries";
import { MalformedOutputError } from "../../../lib/core/errors/taxonomy";

/**
 * Issue 18's file-box upload, below the MCP server: the tool's input (freee's form fields and the Slack file id),
 * the content type freee takes for it, the plan check against the request's files, the message filter that keeps
 * the files of a file_share message, and the preview's words. test/mcp/file-box.ddb.test.ts runs it end to end.
 */
const upload = getTool(UPLOAD_RECEIPT_TOOL)!;
const FILE = { fileId: "F0RECEIPT1", name: "taxi.png", size: 2048, mimetype: "image/png" };

describe("the upload tool's input", () => {
  it("reads freee's form fields and the file id, numbers from their digits; the request is multipart with the file under `receipt`", () => {
    const read = normaliseToolInput(upload, { slack_file_id: "F0RECEIPT1", receipt_metadatum_amount: "5250", document_type: "receipt" });
    expect(read).toMatchObject({ ok: true, input: { slack_file_id: "F0RECEIPT1", receipt_metadatum_amount: 5250, document_type: "receipt" } });
    const request = upload.toRequest((read as { input: Record<string, unknown> }).input, 101);
    expect(request).toEqual({ method: "POST", path: "/api/1/receipts", body: { company_id: 101, receipt_metadatum_amount: 5250, document_type: "receipt" }, upload: { field: "receipt", slackFileId: "F0RECEIPT1" } });
  });

  it("refuses what freee's schema refuses, a missing or malformed file id, and a company the plan chose", () => {
    expect(normaliseToolInput(upload, { description: "x" })).toMatchObject({ ok: false, issues: ["slack_file_id は必須です"] });
    expect(normaliseToolInput(upload, { slack_file_id: "../etc" })).toMatchObject({ ok: false });
    expect(normaliseToolInput(upload, { slack_file_id: "F0RECEIPT1", document_type: "photo" })).toMatchObject({ ok: false });
    expect(normaliseToolInput(upload, { slack_file_id: "F0RECEIPT1", receipt: "bytes" })).toMatchObject({ ok: false });
    expect(normaliseToolInput(upload, { slack_file_id: "F0RECEIPT1", company_id: 101 })).toMatchObject({ ok: false });
  });

  it("the generic POST does not take the file box: it points at the upload tool", () => {
    const read = normaliseToolInput(getTool("freee_api_post")!, { path: "/api/1/receipts", body: { description: "x" } });
    expect(read).toMatchObject({ ok: false, issues: [`POST /api/1/receipts は ${UPLOAD_RECEIPT_TOOL} で指定してください`] });
  });

  it("freee's file box takes multipart/form-data only: a JSON body is refused, and a form without the file names `receipt`", () => {
    const json = checkRequest({ method: "POST", path: "/api/1/receipts", body: { company_id: 1 } });
    expect(json).toMatchObject({ ok: false, issues: [{ keyword: "contentType", message: "この操作のリクエストは multipart/form-data で送ります" }] });
    const noFile = checkRequest({ method: "POST", path: "/api/1/receipts", body: { company_id: "1" }, multipart: { fileFields: [] } });
    expect(noFile).toMatchObject({ ok: false, issues: [{ message: "receipt は必須です" }] });
    const form = checkRequest({ method: "POST", path: "/api/1/receipts", body: { company_id: "1", receipt_metadatum_amount: "10" }, multipart: { fileFields: ["receipt"] } });
    expect(form).toMatchObject({ ok: true, normalised: { body: { company_id: 1, receipt_metadatum_amount: 10 } } });
    // And the other way: a form where freee takes JSON.
    expect(checkRequest({ method: "POST", path: "/api/1/deals", body: {}, multipart: { fileFields: ["x"] } })).toMatchObject({ ok: false, issues: [{ keyword: "contentType" }] });
  });
});

describe("the plan check knows the request's files", () => {
  const step = (fileId: string) => ({ stepId: "s1", order: 1, tool: UPLOAD_RECEIPT_TOOL, toolInput: { slack_file_id: fileId } });

  it("an upload of a file the request shared passes; one it did not share is a MalformedOutputError that lists the files, for L3's retry", () => {
    expect(validateSteps([step("F0RECEIPT1")], { attachments: [FILE] })).toMatchObject([{ tool: UPLOAD_RECEIPT_TOOL, effect: "write" }]);
    const refused = (() => {
      try {
        validateSteps([step("F0OTHER")], { attachments: [FILE] });
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(MalformedOutputError);
    expect((refused as Error).message).toContain('slack_file_id: "F0OTHER" is not a file of the request message (its files: F0RECEIPT1 (taxi.png))');
    expect(() => validateSteps([step("F0RECEIPT1")], { attachments: [] })).toThrow("the request has no files: do not plan an upload");
  });

  it("the model's reply alone (no request at hand) is checked for shape only", () => {
    expect(checkSteps({ steps: [step("F0OTHER")] })).toMatchObject({ steps: [{ stepId: "s1" }] });
  });
});

describe("a message that shares files", () => {
  const base = { type: "message", user: "U1", text: "この領収書を登録して", ts: "1700000000.000100", channel: "C1", channel_type: "channel" };
  const file = (over: Record<string, unknown> = {}) => ({ id: "F0RECEIPT1", name: "taxi.png", mimetype: "image/png", size: 2048, mode: "hosted", url_private: "https://files.slack.com/x", ...over });

  it("subtype file_share is a request, with its hosted files by id, name, size and type (no URL kept)", () => {
    const input = taskInputFromMessage({ ...base, subtype: "file_share", files: [file(), file({ id: "F0GONE", mode: "tombstone" }), file({ id: "F0EXT", is_external: true })] }, { teamId: "T1" });
    expect(input?.attachments).toEqual([FILE]);
  });

  it("other subtypes stay ignored, and a message without files carries none", () => {
    expect(taskInputFromMessage({ ...base, subtype: "message_changed", files: [file()] }, { teamId: "T1" })).toBeUndefined();
    expect(taskInputFromMessage(base, { teamId: "T1" })).not.toHaveProperty("attachments");
  });
});

describe("the preview of an upload", () => {
  it("names the file with its size and type, and the form fields in words", () => {
    const shown = describeUpload({ slack_file_id: "F0RECEIPT1", description: "タクシー代", receipt_metadatum_amount: 5250, document_type: "receipt" }, [FILE]);
    expect(shown.summary).toBe("「taxi.png」（2.0 KB・image/png） を freee 会計のファイルボックスにアップロード");
    expect(shown.details).toEqual(["メモ: タクシー代", "金額: 5,250円", "書類の種類: 領収書"]);
    expect(shown.current).toBe("none");
    expect(describeUpload({ slack_file_id: "F0NOPE" }, [FILE]).warnings[0]).toContain("添付ファイルではありません");
  });
});
