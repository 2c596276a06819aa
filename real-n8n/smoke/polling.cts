import type { Sandbox } from '../../sandbox/service.cts';
import type { Example } from '../examples.cts';
import type { RealN8n } from '../instance.cts';
import { nodeOutput, waitFor } from '../instance.cts';
import { CHECKS, expectThat, polling } from './exampleChecks.cts';

/**
 * The poll examples in a started n8n, active at every minute: customers register in three rounds — one, then 250 at
 * once, then one while n8n is stopped — and after each round the examples' executions must hold every registration
 * so far. Then each example's check runs over all its executions.
 */
export async function checkPolling(
	n8n: RealN8n,
	sandbox: Sandbox,
	examples: Example[],
	report: (file: string, problems: string[], detail: string) => void,
): Promise<void> {
	const polled = examples.filter(({ file }) => CHECKS[file]?.start === 'poll');
	const listReads = () => sandbox.requestsTo('GET', '/api/registrations');
	const readsStarted = () => listReads().filter((request) => request.query.page === '1').length;
	await n8n.stop();
	for (const example of polled) await n8n.activate(example.workflow.id);
	const before = readsStarted();
	await n8n.start();
	// Each activation reads the list from page 1 (a node of version 1 the whole list, in windows of 99; of 1.1, down
	// to what was there, from a small first window): registrations after it are new. Wait for every activation's read
	// to start, then for half a second without a list request (the last read is over).
	let lastCount = -1;
	await waitFor('the activations of the poll examples', () => {
		const count = listReads().length;
		const settled = readsStarted() >= before + polled.length && count === lastCount;
		lastCount = count;
		return settled ? true : undefined;
	});
	const cookie = await n8n.ownerSession();
	let customer = 0;
	const register = (count: number) =>
		sandbox.state.createRegistrations(
			Array.from({ length: count }, () => ({
				productName: 'Kettle K1',
				customerEmail: `poll-customer${(customer += 1)}@example.com`,
				customerName: `Poll Customer ${customer}`,
				purchaseDate: '2024-11-01',
			})),
		).registrations;
	const triggeredOf = async (example: Example) =>
		(await n8n.executionsOf(example.workflow.id, cookie))
			.filter((execution) => execution.status !== 'running' && execution.status !== 'new')
			.flatMap((execution) => nodeOutput({ data: execution.data }, 'New registration'));
	for (const [round, count, restart] of [
		[1, 1, false],
		[2, 250, false],
		[3, 1, true],
	] as const) {
		const started = Date.now();
		if (restart) await n8n.stop();
		polling.registered.push(...register(count));
		if (restart) await n8n.start();
		for (const example of polled) {
			await waitFor(
				`round ${round} in the executions of ${example.file}`,
				async () => ((await triggeredOf(example)).length >= polling.registered.length ? true : undefined),
				180_000,
			);
		}
		console.log(
			`       round ${round}: ${count} registration(s)${restart ? ' while n8n was stopped' : ''}, in the executions of both after ${Math.round((Date.now() - started) / 1000)} s`,
		);
	}
	for (const example of polled) {
		const executions = (await n8n.executionsOf(example.workflow.id, cookie)).filter(
			(execution) => execution.status !== 'running' && execution.status !== 'new',
		);
		const itemsOf = (node: string) => executions.flatMap((execution) => nodeOutput({ data: execution.data }, node));
		const failed = executions.filter((execution) => execution.status !== 'success');
		const problems = [
			...expectThat(failed.length === 0, `${failed.length} execution(s) did not succeed`),
			...CHECKS[example.file].check(itemsOf(example.lastNode), sandbox, 1, '', itemsOf),
		];
		report(
			example.file,
			problems,
			`active at every minute, ${polling.registered.length} registrations in 3 rounds: ${executions.length} executions, ${itemsOf('New registration').length} registrations from the trigger, ${itemsOf(example.lastNode).length} item(s) from "${example.lastNode}"`,
		);
	}
}
