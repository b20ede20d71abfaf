import { OPERATIONS } from "./lib/freee/openapi/operations";
import { ROUTES } from "./dev/fakes/freee/routes";
import { MORE_ROUTES } from "./dev/fakes/freee/routes-more";
for (const e of OPERATIONS) {
  const o = e.operation;
  if (ROUTES[o.operationId] || MORE_ROUTES[o.operationId]) continue;
  const rb = e.readBack ? e.readBack.kind : "";
  console.log(o.method, o.path, o.operationId, rb, o.requestBody ? o.requestBody.contentTypes.join(",") : "");
}
