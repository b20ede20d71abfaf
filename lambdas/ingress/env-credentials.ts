import { fromEnv } from "@aws-sdk/credential-provider-env";

/**
 * Stands in for `@aws-sdk/credential-provider-node` in every Lambda's bundle (infra/bundling.ts). Lambda
 * hands a function its role's credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN), so the SDK's full chain — SSO, INI files, process, web identity, instance metadata and their
 * nested STS / SSO clients, ~95 KiB — is never run there. Same export as the package it replaces.
 */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
