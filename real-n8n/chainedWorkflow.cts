/** A node of a workflow made for a check or a benchmark: its name, type and parameters (the rest is filled in). */
export type ChainedNode = Record<string, unknown> & { name: string };

/** A Code node whose snippet returns the items a run starts with (rows of a sheet, IDs, ...). */
export function itemsNode(name: string, jsCode: string): ChainedNode {
	return { name, type: 'n8n-nodes-base.code', typeVersion: 2, parameters: { jsCode } };
}

/**
 * A workflow to import into a real n8n and run with `n8n execute`: a Manual Trigger named "Start", then `nodes`, each
 * connected to the one before it.
 */
export function chainedWorkflow(id: string, nodes: ChainedNode[]) {
	const all: ChainedNode[] = [
		{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
		...nodes,
	];
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
