// Imported before anything that loads n8n-core: the fault suite wants n8n's debug log lines, to search them for
// the token, where the other tests keep the logger silent. `restoreLogLevel` gives the next test file of this
// worker its quiet logger back.
const previousLevel = process.env.N8N_LOG_LEVEL;
process.env.N8N_LOG_LEVEL = 'debug';

export function restoreLogLevel(): void {
	process.env.N8N_LOG_LEVEL = previousLevel;
}
