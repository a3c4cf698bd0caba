/** `code` (JavaScript or declarations) with its relative `.ts` import and export specifiers ending in `.js` (scripts/ts-specifiers.mjs). */
export function rewriteTsSpecifiers(code: string): string;
