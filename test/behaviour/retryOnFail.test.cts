import type { INode, INodeExecutionData } from 'n8n-workflow';

import { useSandbox } from '../../harness/sandbox.cts';
import { productRegistrationNode, runNode, runWorkflow } from '../../harness/workflowRunner.cts';

/**
 * n8n's Retry On Fail (a node's Settings) and the node's own Retries, in the same fault. n8n runs a node that failed
 * again from its first input item; the node's Retries repeat one request, and never a create the service may have
 * acted on. Why the node offers its own: docs/development.md, "Departures a reviewer will question".
 */

const { sandbox, credentials } = useSandbox();

const NAME = 'Product Registration';

/** Four registrations in two batches of two, one batch at a time. */
const createInTwoBatches = {
	resource: 'registration',
	operation: 'create',
	productName: '={{ $json.product }}',
	customerEmail: '={{ $json.email }}',
	options: { batchSize: 2, concurrency: 1, retryDelay: 1, timeout: 2000 },
};

const rows = (count: number): INodeExecutionData[] =>
	Array.from({ length: count }, (_, index) => ({
		json: { product: `Kettle K${index}`, email: `customer${index}@example.com` },
	}));

/** How many registrations the service holds for each product name. */
function storedPerProduct(): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const registration of sandbox().state.registrations.values()) {
		const product = String((registration as { productName?: unknown }).productName);
		counts[product] = (counts[product] ?? 0) + 1;
	}
	return counts;
}

/** The first batch goes through; the second meets a 503, so the service may or may not have acted on it. */
const secondBatchMeetsA503 = () =>
	sandbox().faultQueue.push({}, { status: 503, body: { message: 'Service Unavailable' } });

test("n8n's Retry On Fail runs the whole node again: the batch the service took before the failure is created twice", async () => {
	secondBatchMeetsA503();
	const node: INode = {
		...productRegistrationNode(NAME, createInTwoBatches),
		retryOnFail: true,
		maxTries: 2,
		waitBetweenTries: 0,
	};

	const run = await runWorkflow({
		workflow: { nodes: [node], connections: {} },
		credentials: credentials(),
		startNode: NAME,
		items: rows(4),
	});

	// The first try stops at the second batch (its outcome unknown); n8n's second try sends both batches again.
	expect(run.error).toBeUndefined();
	expect(sandbox().requestsTo('POST', '/api/registrations')).toHaveLength(4);
	expect(storedPerProduct()).toEqual({ 'Kettle K0': 2, 'Kettle K1': 2, 'Kettle K2': 1, 'Kettle K3': 1 });
});

test("the node's own Retries, in the same fault, create nothing twice: the run stops at the batch whose outcome is unknown and names its items", async () => {
	secondBatchMeetsA503();

	const result = await runNode({ parameters: createInTwoBatches, credentials: credentials(), items: rows(4) });

	expect(result.error?.message).toBe(
		'The outcome is unknown: the service answered HTTP 503: Service Unavailable, so the service may or may not have created the 2 registrations of items 2 to 3. The request was not repeated, so that nothing is created twice.',
	);
	expect(sandbox().requestsTo('POST', '/api/registrations')).toHaveLength(2);
	expect(storedPerProduct()).toEqual({ 'Kettle K0': 1, 'Kettle K1': 1 });
});
