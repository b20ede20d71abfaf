/** The floor of a Lambda's cold start: a bare handler, bundled with the same options as every function. */
export const handler = async () => ({});
