import { config } from "zod/mini";
import en from "zod/v4/locales/en.js";

/**
 * zod/mini, the tree-shakable build of the same zod: zod classic ships its whole method surface (~440 KiB) in every
 * Lambda that parses anything. Mini loads no locale, so its issues would read "Invalid input"; the English one
 * classic registers is set here, because issue messages reach MalformedOutputError details and L3's retry prompt.
 * Import it as `import * as z from ".../core/zod"`: a re-exported namespace object would keep every export.
 */
config(en());

export * from "zod/mini";
