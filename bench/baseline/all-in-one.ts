/**
 * A step Lambda as every step shipped when one wiring built every port (Anthropic Messages, Managed Agents, freee
 * reads, the write ledger, Slack cards, Step Functions) whatever the step used: one bundle holding every step
 * handler and so every port. Its `handler` is AwaitApproval's, called as the steps are (docs/bench.md); the other
 * exports keep the rest in the bundle.
 */
export { handler } from "../../lambdas/await-approval/handler";
export { handler as analyzeTask } from "../../lambdas/analyze-task/handler";
export { handler as createTask } from "../../lambdas/create-task/handler";
export { handler as expireApproval } from "../../lambdas/expire-approval/handler";
export { handler as generateProcess } from "../../lambdas/generate-process/handler";
export { handler as generatePrompt } from "../../lambdas/generate-prompt/handler";
export { handler as handleRejection } from "../../lambdas/handle-rejection/handler";
export { handler as pollSession } from "../../lambdas/poll-session/handler";
export { handler as previewProcess } from "../../lambdas/preview-process/handler";
export { handler as reconcileExecution } from "../../lambdas/reconcile-execution/handler";
export { handler as recordPipelineFailure } from "../../lambdas/record-pipeline-failure/handler";
export { handler as recordRunFailure } from "../../lambdas/record-run-failure/handler";
export { handler as startRun } from "../../lambdas/start-run/handler";
export { handler as startSession } from "../../lambdas/start-session/handler";
