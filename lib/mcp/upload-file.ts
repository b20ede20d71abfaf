import { isAppError, AuthError, FatalConfigError, TransientError } from "../core/errors/taxonomy";
import type { FreeeRequest } from "../freee/types";
import type { ToolCall } from "./call-context";
import { refusal, RefusalTexts, type Refusal } from "./refusals";

/**
 * The file of an approved file-box upload, fetched for this step only: the file must be one the request message
 * shared (the plan was checked against the same list), still the same in Slack. Anything else is a refusal the
 * agent reads — nothing reached freee, so the step stays open for a retry of the same call.
 */
export async function attachUpload(call: ToolCall, request: FreeeRequest, stepId: string): Promise<FreeeRequest | Refusal> {
  const upload = request.upload;
  if (upload === undefined) return request;
  const { deps, scope } = call;
  const task = await deps.taskStore.getTask(scope.taskId);
  const ref = task?.attachments?.find((a) => a.fileId === upload.slackFileId);
  if (task === undefined || ref === undefined) {
    return refusal("attachment_unavailable", RefusalTexts.attachmentUnavailable(stepId, upload.slackFileId, "not_attached"), { stepId, fileId: upload.slackFileId });
  }
  if (deps.slackFiles === undefined) throw new FatalConfigError("the MCP server was wired without a Slack file source, and a step uploads a file");
  try {
    const fetched = await deps.slackFiles.fetchFile(task.thread, ref);
    if (!fetched.ok) return refusal("attachment_unavailable", RefusalTexts.attachmentUnavailable(stepId, ref.name, fetched.why), { stepId, fileId: ref.fileId, detail: fetched.detail });
    return { ...request, file: fetched.file };
  } catch (err) {
    const why = err instanceof TransientError ? "slack_unavailable" : "slack_refused";
    deps.logger.warn("could not fetch the request's file from Slack", { stepId, fileId: ref.fileId, error_type: err instanceof Error ? err.name : "Error" });
    return refusal("attachment_unavailable", RefusalTexts.attachmentUnavailable(stepId, ref.name, why), {
      stepId,
      fileId: ref.fileId,
      errorType: err instanceof Error ? err.name : "Error",
      ...(isAppError(err) && !(err instanceof AuthError) ? { errorDetails: err.details } : {}),
    });
  }
}
