import { Duration, RemovalPolicy } from "aws-cdk-lib";
import * as logs from "aws-cdk-lib/aws-logs";
import * as sfn from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import { buildExecutionRunDefinition } from "../state-machines/execution-run";
import type { StepFunctions } from "../state-machines/functions";
import { buildTaskPipelineDefinition } from "../state-machines/task-pipeline";

export interface StateMachinesProps {
  functions: StepFunctions;
  approvalTimeoutSeconds: number;
  pollIntervalSeconds: number;
  logRetention: logs.RetentionDays;
}

/**
 * TaskPipeline and ExecutionRun: Standard, JSONPath, logged and traced. The logs carry every state transition
 * but no execution data: states hold request text, rejection reasons and pay figures, and the approval waits
 * pass their task token to a Lambda (infra/state-machines/task-pipeline.ts).
 */
export class StateMachines extends Construct {
  readonly taskPipeline: sfn.StateMachine;
  readonly executionRun: sfn.StateMachine;

  constructor(scope: Construct, id: string, props: StateMachinesProps) {
    super(scope, id);
    const machine = (name: string, definition: sfn.IChainable) =>
      new sfn.StateMachine(this, name, {
        stateMachineType: sfn.StateMachineType.STANDARD,
        queryLanguage: sfn.QueryLanguage.JSON_PATH,
        definitionBody: sfn.DefinitionBody.fromChainable(definition),
        tracingEnabled: true,
        logs: {
          destination: new logs.LogGroup(this, `${name}Logs`, { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY }),
          level: sfn.LogLevel.ALL,
          includeExecutionData: false,
        },
      });
    this.executionRun = machine(
      "ExecutionRun",
      buildExecutionRunDefinition(new Construct(this, "ExecutionRunStates"), {
        functions: props.functions,
        pollInterval: Duration.seconds(props.pollIntervalSeconds),
      }),
    );
    this.taskPipeline = machine(
      "TaskPipeline",
      buildTaskPipelineDefinition(new Construct(this, "TaskPipelineStates"), {
        functions: props.functions,
        approvalTimeout: Duration.seconds(props.approvalTimeoutSeconds),
      }),
    );
  }
}
