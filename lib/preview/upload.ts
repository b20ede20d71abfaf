import type { SlackFileRef } from "../core/domain/records";
import type { Described } from "./describe";
import { quoted, yen } from "./format";

/**
 * The preview of a file-box upload: which of the request's files goes to freee (its name, size and type, as the
 * request message shared it) and the form fields with it. Nothing is read from freee: the upload creates a record.
 */

/** The input keys this preview puts into words (lib/preview/describe.ts `uncoveredInput`). */
export const UPLOAD_COVERED_KEYS = [
  "slack_file_id",
  "description",
  "receipt_metadatum_partner_name",
  "receipt_metadatum_issue_date",
  "receipt_metadatum_amount",
  "qualified_invoice",
  "document_type",
] as const;

const DOCUMENT_TYPES: Record<string, string> = { receipt: "領収書", invoice: "請求書", other: "その他" };
const QUALIFIED: Record<string, string> = { qualified: "該当する", not_qualified: "該当しない", unselected: "未選択" };

export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export function describeUpload(input: Record<string, unknown>, attachments: readonly SlackFileRef[]): Described {
  const fileId = String(input.slack_file_id);
  const file = attachments.find((a) => a.fileId === fileId);
  const warnings: string[] = [];
  const what = file === undefined ? `ファイル ${fileId}` : `${quoted(file.name)}（${fileSize(file.size)}・${file.mimetype}）`;
  if (file === undefined) warnings.push(`ファイル ${fileId} はこの依頼メッセージの添付ファイルではありません。実行時に送信を拒否します。`);
  const details: string[] = [];
  const field = (label: string, value: unknown, show: (v: unknown) => string = String) => {
    if (value !== undefined && value !== null) details.push(`${label}: ${show(value)}`);
  };
  field("メモ", input.description);
  field("発行元", input.receipt_metadatum_partner_name);
  field("発行日", input.receipt_metadatum_issue_date);
  field("金額", input.receipt_metadatum_amount, (v) => yen(Number(v)));
  field("書類の種類", input.document_type, (v) => DOCUMENT_TYPES[String(v)] ?? String(v));
  field("適格請求書等", input.qualified_invoice, (v) => QUALIFIED[String(v)] ?? String(v));
  return {
    title: "ファイルボックスへのアップロード",
    summary: `${what} を freee 会計のファイルボックスにアップロード`,
    details,
    // The change table shows this row instead of the summary: the file as the request message shows it.
    changes: [{ label: "ファイルボックス", after: what }],
    current: "none",
    currentNote: "新しい証憑ファイルとして登録します（既存のファイルは変わりません）。",
    warnings,
  };
}
