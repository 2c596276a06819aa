/** A node of a workflow made for a check or a benchmark: its name, type and parameters (the rest is filled in). */
export type ChainedNode = Record<string, unknown> & { name: string };

/** A Code node whose snippet returns the items a run starts with (rows of a sheet, IDs, ...). */
export function itemsNode(name: string, jsCode: string): ChainedNode {
	return { name, type: 'n8n-nodes-base.code', typeVersion: 2, parameters: { jsCode } };
}

/** The start of a workflow run with `n8n execute`. */
const MANUAL_START: ChainedNode = { name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} };

/**
 * The start of a workflow that a running n8n runs as a production execution, as a shop's workflows are run: a POST to
 * /webhook/<path>, answered (with no data) once the last node has finished. The workflow must be activated.
 */
export function webhookStart(path: string, webhookId: string): ChainedNode {
	return {
		name: 'Start',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId,
		parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'noData', options: {} },
	};
}

/**
 * A workflow to import into a real n8n: `start` (a Manual Trigger named "Start", for `n8n execute`, unless given),
 * then `nodes`, each connected to the one before it.
 */
export function chainedWorkflow(id: string, nodes: ChainedNode[], start = MANUAL_START) {
	const all: ChainedNode[] = [start, ...nodes];
	const connections: Record<string, unknown> = {};
	all.slice(0, -1).forEach((node, index) => {
		connections[node.name] = { main: [[{ node: all[index + 1].name, type: 'main', index: 0 }]] };
	});
	return {
		id,
		name: id,
		active: false,
		settings: { executionOrder: 'v1' },
		connections,
		nodes: all.map((node, index) => ({
			id: `c0000000-0000-4000-8000-${String(index + 1).padStart(12, '0')}`,
			position: [index * 220, 0],
			...node,
		})),
	};
}

/** Rows of a sheet a shop imports: 5 products for each of `rows / 5` customers, a customer's rows together. */
export const SHEET_ROWS = 1000;

/**
 * A scheduled import as a shop sets it up: a Code node with the sheet's 1,000 rows (200 customers), then Registration:
 * Create named "Register", mapped automatically, with If Already Registered: Skip, using `credential`.
 */
export function sheetImportWorkflow(id: string, credential: { id: string; name: string }) {
	const sheet = `return Array.from({ length: ${SHEET_ROWS} }, (_, i) => ({ json: { Product: 'Grinder G' + (i % 5), Email: 'buyer' + Math.floor(i / 5) + '@example.com' } }));`;
	return chainedWorkflow(id, [
		itemsNode('Sheet', sheet),
		{
			name: 'Register',
			type: 'n8n-nodes-product-registration.productRegistration',
			typeVersion: 1,
			parameters: {
				resource: 'registration',
				operation: 'create',
				dataMode: 'autoMapInputData',
				options: { ifExists: 'skip' },
			},
			credentials: { productRegistrationApi: credential },
		},
	]);
}
