// Imported first by the commands: the AWS SDK prints a 9-line Node version notice in the middle of their output
// when it builds a client. The Node requirement is stated once, in package.json engines and the README; set the
// variable to "false" to see the SDK's notice.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
