// The scanner ships plain ESM without types; these are the exports scripts/scan-package.ts uses.
declare module '@n8n/scan-community-package/scanner/scanner.mjs' {
	export interface AnalysisResult {
		passed: boolean;
		message?: string;
		details?: string;
	}
	/** The files n8n lints in the provenance-attested source checkout. */
	export const SOURCE_FILE_PATTERNS: string[];
	/** Lints `filePatterns` under `packageDir` with the scanner's own flat config (no-console included). */
	export function analyzePackage(
		packageDir: string,
		filePatterns?: string[],
	): Promise<AnalysisResult>;
}
