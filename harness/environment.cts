import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// n8n-core reads these on first use: keep its settings out of $HOME, give it a key, and keep node errors quiet.
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'product-registration-n8n-'));
process.env.N8N_ENCRYPTION_KEY ??= 'product-registration-test-key';
process.env.N8N_LOG_LEVEL ??= 'silent';
