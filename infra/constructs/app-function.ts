import { Annotations, Duration, RemovalPolicy } from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import * as lambda from "aws-cdk-lib/aws-lambda";
import { NodejsFunction } from "aws-cdk-lib/aws-lambda-nodejs";
import * as logs from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LAMBDA_BUNDLING, nodejsBundlingOptions, type LambdaBundling } from "../bundling";

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Every function's memory unless it sets its own (none does): what the bench's cost model bills. */
export const DEFAULT_MEMORY_SIZE_MB = 512;

export interface AppFunctionProps {
  /** Folder under lambdas/ holding handler.ts. */
  folder: string;
  environment: Record<string, string>;
  timeout: Duration;
  memorySize?: number;
  logRetention: logs.RetentionDays;
  /**
   * Load the source map at start (readable stack traces). Parsing it roughly doubles a cold start, so the
   * ingress, which must answer Slack within 3 s, runs without it (the map is still shipped for debugging).
   */
  enableSourceMaps?: boolean;
  /** How the function is bundled. @default LAMBDA_BUNDLING (infra/bundling.ts), shared with the bench and tests */
  bundling?: LambdaBundling;
}

/**
 * One Lambda of the app: Node 22 on arm64, bundled by esbuild (no Docker) as ESM, its own log group with a
 * retention, X-Ray active. A missing entry file is a synth error naming the file (nothing is deployed in its
 * place): the resource is still declared so the rest of the stack and its grants can be built and inspected.
 */
export class AppFunction extends Construct {
  readonly fn: lambda.Function;
  readonly logGroup: logs.LogGroup;
  readonly role: iam.Role;
  readonly entry: string;
  /** The esbuild options it is bundled with (the bench and the bundle tests build the same). */
  readonly bundling: LambdaBundling;

  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    super(scope, id);
    this.entry = join(PROJECT_ROOT, "lambdas", props.folder, "handler.ts");
    this.bundling = props.bundling ?? LAMBDA_BUNDLING;
    this.logGroup = new logs.LogGroup(this, "Logs", { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    // Own role instead of AWSLambdaBasicExecutionRole: write to this function's log group only.
    this.role = new iam.Role(this, "Role", { assumedBy: new iam.ServicePrincipal("lambda.amazonaws.com") });
    this.logGroup.grantWrite(this.role);
    const common = {
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? DEFAULT_MEMORY_SIZE_MB,
      timeout: props.timeout,
      logGroup: this.logGroup,
      role: this.role,
      tracing: lambda.Tracing.ACTIVE,
      environment: {
        ...(props.enableSourceMaps === false ? {} : { NODE_OPTIONS: "--enable-source-maps" }),
        POWERTOOLS_SERVICE_NAME: props.folder,
        ...props.environment,
      },
    };
    if (existsSync(this.entry)) {
      this.fn = new NodejsFunction(this, "Function", {
        ...common,
        entry: this.entry,
        handler: "handler",
        projectRoot: PROJECT_ROOT,
        depsLockFilePath: join(PROJECT_ROOT, "package-lock.json"),
        bundling: nodejsBundlingOptions(this.bundling),
      });
    } else {
      Annotations.of(this).addError(`Lambda entry ${this.entry} does not exist: synth cannot bundle ${props.folder}`);
      this.fn = new lambda.Function(this, "Function", {
        ...common,
        handler: "index.handler",
        code: lambda.Code.fromInline("exports.handler = async () => { throw new Error('not built'); };"),
      });
    }
  }
}
