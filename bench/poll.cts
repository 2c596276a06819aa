import { PollingTrigger } from '../harness/pollingTrigger.cts';
import { LATENCY_MS, startSandbox } from './cases.cts';
import type { Measurement } from './measure.cts';
import { measure } from './measure.cts';

/** What the poll trigger is measured on: a poll that finds nothing new, or one after a burst of 10,000. */
export type PollWay = 'idle' | 'burst';

export const BURST = 10_000;

export interface PollFigures {
	requests: number;
	itemsOut: number;
	distinctIds: number;
}

/** Polls at n8n's most frequent Poll Time, every minute, before the one measured: the trigger as it runs for days. */
const POLLS_BEFORE = 3;

/**
 * One poll of an active Poll Trigger, against the sandbox in its own process (20 ms a request), whose shop held 1,000
 * registrations made over the past 30 days when the workflow was activated, after POLLS_BEFORE polls a minute apart:
 * with nothing new since, or after 10,000 new registrations at once. `newestFirst`: a node added since 0.7, whose List
 * Order is Newest First; otherwise one added before, which learns the order from the answers.
 */
export async function measurePoll(way: PollWay, newestFirst: boolean): Promise<Measurement<PollFigures>> {
	const sandbox = await startSandbox({ latencyMs: LATENCY_MS, history: 1000 });
	try {
		const poller = new PollingTrigger(
			{ event: 'newRegistration' },
			{ baseUrl: sandbox.baseUrl, accessToken: sandbox.token },
			newestFirst ? 1.1 : 1,
		);
		await poller.activate();
		for (let poll = 0; poll <= POLLS_BEFORE; poll++) {
			await sandbox.setUp({ latencyMs: LATENCY_MS, clockAheadMs: 60_000 });
			if (poll < POLLS_BEFORE) await poller.poll();
		}
		if (way === 'burst') await sandbox.setUp({ latencyMs: LATENCY_MS, registrations: BURST });
		const before = await sandbox.requests();
		const measured = await measure(async () => {
			const { items, error } = await poller.poll();
			if (error) throw error;
			return { requests: 0, itemsOut: items.length, distinctIds: new Set(items.map((item) => item.json.id)).size };
		});
		measured.result.requests = (await sandbox.requests()) - before;
		return measured;
	} finally {
		sandbox.stop();
	}
}
