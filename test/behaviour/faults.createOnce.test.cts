import type { INodeExecutionData } from 'n8n-workflow';

import { useSandbox } from '../../harness/sandbox.cts';
import { runNode } from '../../harness/workflowRunner.cts';
import { seededRandom } from '../../sandbox/random.cts';
import type { Fault } from '../../sandbox/service.cts';
import { writeDocsSection, writesDocs } from '../../scripts/docsSection.cts';

/**
 * Create exactly once, under faults: 2,000 registrations created with If Already Registered: Skip while the service
 * loses the answers of some creates — it stores them and drops the connection, drops it before acting, answers with
 * a proxy's HTML page, or stalls past the Timeout. Every lost answer is resolved by a lookup: no registration twice,
 * no unknown outcome left, every item out once.
 */

const { sandbox, credentials } = useSandbox();

const SEED = 20261123;
const CREATES = 2000;
const ITEMS_PER_RUN = 50;
const LOST_ANSWER_RATE = 0.25;
const TIMEOUT_MS = 250;

const LOST_ANSWERS: Array<[name: string, fault: Fault]> = [
	['stored, then the connection dropped', { resetAfterHandling: true }],
	['the connection dropped before acting', { resetBeforeHandling: true }],
	['an HTML page from a proxy', { status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' }],
	['stalled past the Timeout', { delayMs: 2 * TIMEOUT_MS }],
];

test('2,000 creates with Skip while answers get lost: none twice, no unknown outcome left, every item out', async () => {
	const random = seededRandom(SEED);
	const lost = new Map<string, number>();
	sandbox().faultPlan = (request) => {
		if (request.method !== 'POST' || random() >= LOST_ANSWER_RATE) return undefined;
		const [name, fault] = LOST_ANSWERS[Math.floor(random() * LOST_ANSWERS.length)];
		lost.set(name, (lost.get(name) ?? 0) + 1);
		return fault;
	};
	const summary = { creates: 0, created: 0, unknownOutcomesLeft: 0, otherErrors: 0, itemsLost: 0 };

	for (let run = 0; run < CREATES / ITEMS_PER_RUN; run++) {
		const items: INodeExecutionData[] = Array.from({ length: ITEMS_PER_RUN }, (_, index) => ({
			json: { Product: 'Kettle K1', Email: `customer-${run}-${index}@example.com`, Serials: `KT-${run}-${index}` },
		}));
		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'create',
				dataMode: 'autoMapInputData',
				options: { ifExists: 'skip', batchSize: 10, timeout: TIMEOUT_MS, retryDelay: 1, maxRetries: 10 },
			},
			credentials: credentials(),
			items,
			continueOnFail: true,
		});
		summary.creates += items.length;
		items.forEach((_, index) => {
			const outputs = result.items.filter((output) => (output.pairedItem as { item: number }).item === index);
			if (outputs.length !== 1) summary.itemsLost += 1;
			else if (outputs[0].json.outcome === 'created') summary.created += 1;
			else if (String(outputs[0].json.error).startsWith('The outcome is unknown')) summary.unknownOutcomesLeft += 1;
			else summary.otherErrors += 1;
		});
	}
	sandbox().faultPlan = undefined;

	const perSerial = new Map<string, number>();
	for (const registration of sandbox().state.registrations.values()) {
		for (const serial of registration.serialNumbers) perSerial.set(serial, (perSerial.get(serial) ?? 0) + 1);
	}
	const duplicates = [...perSerial.values()].reduce((sum, count) => sum + count - 1, 0);
	const lostAnswers = [...lost.values()].reduce((sum, count) => sum + count, 0);
	const report =
		`create once (seed ${SEED}): ${summary.creates} creates with If Already Registered: Skip, ${lostAnswers} answers lost ` +
		`(${[...lost].map(([name, count]) => `${name}: ${count}`).join(', ')}), ${summary.created} items created, ` +
		`${duplicates} duplicates, ${summary.unknownOutcomesLeft} unknown outcomes left, ${summary.otherErrors} other errors, ` +
		`${summary.itemsLost} items lost`;
	process.stdout.write(`\n${report}\n`);
	if (writesDocs())
		writeDocsSection('reliability.md', 'create-once', 'npm run docs:reliability', `\`\`\`\n${report}\n\`\`\``);

	expect(lost.size).toBe(LOST_ANSWERS.length);
	expect(summary).toEqual({ creates: CREATES, created: CREATES, unknownOutcomesLeft: 0, otherErrors: 0, itemsLost: 0 });
	expect(duplicates).toBe(0);
	expect(perSerial.size).toBe(CREATES);
}, 300_000);
