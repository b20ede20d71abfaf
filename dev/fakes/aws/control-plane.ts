import { listen, type ListeningFake } from "../http";

/**
 * Secrets Manager and SNS as `npm run smoke` calls them, for a local stand-in (AWS_ENDPOINT_URL_SECRETS_MANAGER,
 * AWS_ENDPOINT_URL_SNS): DescribeSecret and GetSecretValue (awsJson1_1), ListSubscriptionsByTopic (awsQuery, XML).
 * Strict as the services are: a request must be SigV4-signed for the right service, name a known action, and a
 * secret or topic that exists (ResourceNotFoundException / NotFound otherwise). Every call is recorded, so a test
 * can see that no secret value was asked for but the one smoke signs with.
 */
export interface FakeSecret {
  arn: string;
  value: string;
  /** How many versions: 1 is the stack's generated value; a put-secret-value adds one (AWSPREVIOUS then). */
  versions: number;
}

export interface FakeTopic {
  arn: string;
  /** Subscription ARNs, or "PendingConfirmation" for an e-mail address that has not confirmed. */
  subscriptions: string[];
}

export interface FakeControlPlane extends ListeningFake {
  secrets: Map<string, FakeSecret>;
  topics: Map<string, FakeTopic>;
  calls: Array<{ service: "secretsmanager" | "sns"; action: string; target: string }>;
}

export async function startFakeControlPlane(): Promise<FakeControlPlane> {
  const secrets = new Map<string, FakeSecret>();
  const topics = new Map<string, FakeTopic>();
  const calls: FakeControlPlane["calls"] = [];
  const server = await listen(async (request) => {
    const auth = request.headers.get("authorization") ?? "";
    const scope = /^AWS4-HMAC-SHA256 Credential=[^/]+\/\d{8}\/[a-z0-9-]+\/([a-z]+)\/aws4_request, SignedHeaders=[^,]+, Signature=[0-9a-f]{64}$/.exec(auth);
    if (request.method !== "POST" || scope === null) return new Response("missing or malformed SigV4 authorization", { status: 403 });
    if (scope[1] === "secretsmanager") return secretsManager(request);
    if (scope[1] === "sns") return sns(request);
    return new Response(`no such service ${scope[1]}`, { status: 400 });
  });

  async function secretsManager(request: Request): Promise<Response> {
    const target = request.headers.get("x-amz-target") ?? "";
    const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/x-amz-json-1.1" } });
    if (!(request.headers.get("content-type") ?? "").startsWith("application/x-amz-json-1.1")) return json(400, { __type: "SerializationException" });
    const body = (await request.json()) as { SecretId?: unknown };
    const action = target.replace(/^secretsmanager\./, "");
    if (action !== "DescribeSecret" && action !== "GetSecretValue") return json(400, { __type: "UnknownOperationException" });
    const id = typeof body.SecretId === "string" ? body.SecretId : "";
    calls.push({ service: "secretsmanager", action, target: id });
    const secret = secrets.get(id);
    if (secret === undefined) return json(400, { __type: "ResourceNotFoundException", message: "Secrets Manager can't find the specified secret." });
    const name = secret.arn.split(":secret:")[1]!;
    const ids = Array.from({ length: secret.versions }, (_, i) => `v${i + 1}`);
    if (action === "GetSecretValue") return json(200, { ARN: secret.arn, Name: name, SecretString: secret.value, VersionId: ids.at(-1), VersionStages: ["AWSCURRENT"] });
    const stages = Object.fromEntries(ids.map((v, i) => [v, i === ids.length - 1 ? ["AWSCURRENT"] : i === ids.length - 2 ? ["AWSPREVIOUS"] : []]));
    return json(200, { ARN: secret.arn, Name: name, VersionIdsToStages: stages, CreatedDate: 1_790_000_000 });
  }

  async function sns(request: Request): Promise<Response> {
    const form = new URLSearchParams(await request.text());
    const xml = (status: number, body: string) => new Response(`<?xml version="1.0"?>\n${body}`, { status, headers: { "content-type": "text/xml" } });
    const action = form.get("Action") ?? "";
    if (form.get("Version") !== "2010-03-31" || action !== "ListSubscriptionsByTopic") return xml(400, `<ErrorResponse><Error><Type>Sender</Type><Code>InvalidAction</Code><Message>${action}</Message></Error></ErrorResponse>`);
    const arn = form.get("TopicArn") ?? "";
    calls.push({ service: "sns", action, target: arn });
    const topic = topics.get(arn);
    if (topic === undefined) return xml(404, "<ErrorResponse><Error><Type>Sender</Type><Code>NotFound</Code><Message>Topic does not exist</Message></Error></ErrorResponse>");
    const members = topic.subscriptions.map((s) => `<member><TopicArn>${arn}</TopicArn><Protocol>email</Protocol><SubscriptionArn>${s}</SubscriptionArn><Owner>000000000000</Owner><Endpoint>oncall@example.com</Endpoint></member>`).join("");
    return xml(200, `<ListSubscriptionsByTopicResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><ListSubscriptionsByTopicResult><Subscriptions>${members}</Subscriptions></ListSubscriptionsByTopicResult></ListSubscriptionsByTopicResponse>`);
  }

  return { ...server, secrets, topics, calls };
}
