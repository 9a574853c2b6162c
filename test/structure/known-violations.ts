/**
 * The ratchet list: import-rule violations that exist today and are being removed. The check in
 * imports.test.ts fails on any violation missing here AND on any line here that no longer occurs,
 * so this list can only shrink: when a change removes a violation, delete its line in the same
 * change. Never add a line to make a new violation pass; fix the import instead.
 */
export const KNOWN_IMPORT_VIOLATIONS: readonly string[] = [];

/**
 * The same ratchet for size: pieces over their limit today (sizes.ts), named without their length
 * (that changes with every edit). sizes.test.ts fails on a piece over its limit that is missing
 * here and on a line here whose piece is back within its limit (or gone).
 */
export const KNOWN_OVERSIZED: readonly string[] = [];
