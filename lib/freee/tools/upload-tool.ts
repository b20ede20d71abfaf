import { operationByTemplate } from "../openapi/operations";
import { generatedInputSchema, schemaInputReader, withGeneratedSchema, type FreeeToolDefinition } from "./define";
import { typedSummaryOf, UPLOAD_RECEIPT_TOOL } from "./summaries";

/**
 * The file box (ファイルボックス) upload: a receipt attached to the request in Slack goes to freee as
 * `POST /api/1/receipts` (multipart/form-data). The input names the Slack file by id — one of the files of the
 * request message (checked at plan time) — and freee's own form fields beside it (メモ, 発行元, 発行日, 金額…).
 * The bytes are never in the plan or the session: the MCP server fetches them from Slack for the approved step
 * only (lib/mcp/slack-files.ts).
 */

/** The form field freee reads the file from. */
export const RECEIPT_FILE_FIELD = "receipt";
/** Slack file ids: `F` and upper-case letters / digits. */
export const SLACK_FILE_ID = /^F[A-Z0-9]{2,}$/;
/** freee's limit per file (its API reference for the file box). */
export const RECEIPT_MAX_BYTES = 64 * 1024 * 1024;

/** Ours, before freee's form fields: which file of the request message goes to the file box. */
const SLACK_FILE_FIELD = { slack_file_id: { type: "string", pattern: SLACK_FILE_ID.source, description: "依頼メッセージに添付された Slack ファイルの ID（F で始まる）" } };

function uploadTool(): FreeeToolDefinition {
  const summary = typedSummaryOf(UPLOAD_RECEIPT_TOOL);
  const { operation } = operationByTemplate(summary.operation);
  return withGeneratedSchema({
    ...summary,
    // freee's form fields (minus company_id and the file) after the Slack file id, made at build time.
    inputSchemaSource: { kind: "operation", operation: summary.operation, omit: [RECEIPT_FILE_FIELD], leading: SLACK_FILE_FIELD },
    readInput: schemaInputReader(UPLOAD_RECEIPT_TOOL, () => generatedInputSchema(UPLOAD_RECEIPT_TOOL)),
    toRequest(input, companyId) {
      const { slack_file_id, ...form } = input;
      return { method: "POST", path: operation.path, body: { company_id: companyId, ...form }, upload: { field: RECEIPT_FILE_FIELD, slackFileId: String(slack_file_id) } };
    },
  });
}

export const UPLOAD_RECEIPT: FreeeToolDefinition = uploadTool();
