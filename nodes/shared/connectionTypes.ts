import type { NodeConnectionType } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

/**
 * The main connection. n8n-workflow before 1.8x has no `NodeConnectionTypes` object at run time (its connection
 * types were a compile-time enum), so reading it there gives undefined; the value is "main" on every n8n line.
 */
export const mainConnection: NodeConnectionType = NodeConnectionTypes?.Main ?? 'main';
