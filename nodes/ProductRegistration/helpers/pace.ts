import { executionScoped } from './executionScope';

/**
 * How many requests may be in flight at once, adapting to the service: halved when it answers 429 (too many
 * requests), raised by one after as many successes in a row as are allowed at once, never above the maximum.
 */
export class Pace {
	private limit: number;

	private successesInARow = 0;

	constructor(readonly max: number) {
		this.limit = max;
	}

	get current(): number {
		return this.limit;
	}

	slowDown(): void {
		this.limit = Math.max(1, Math.floor(this.limit / 2));
		this.successesInARow = 0;
	}

	speedUp(): void {
		if (this.limit >= this.max) return;
		this.successesInARow += 1;
		if (this.successesInARow >= this.limit) {
			this.limit += 1;
			this.successesInARow = 0;
		}
	}
}

/**
 * Runs `task` for indexes 0..count-1 with at most `pace.current` running at once, starting them in order. A task
 * that answers 'stop' keeps further tasks from starting; those already running finish. Tasks must not reject.
 */
export function runPaced(
	count: number,
	pace: Pace,
	task: (index: number) => Promise<'continue' | 'stop'>,
): Promise<void> {
	return new Promise((resolve) => {
		let next = 0;
		let running = 0;
		let stopped = false;
		const launch = () => {
			while (!stopped && next < count && running < pace.current) {
				const index = next++;
				running += 1;
				void task(index).then((verdict) => {
					running -= 1;
					if (verdict === 'stop') stopped = true;
					launch();
				});
			}
			if (running === 0 && (stopped || next >= count)) resolve();
		};
		launch();
	});
}

/**
 * The pace of the current run of the node: a 429 slows the whole run down, successes speed it up again. The
 * transport reports to it; the phase of a run that sends requests concurrently sets it.
 */
export const requestPace = executionScoped<Pace>();

/**
 * Runs `work` for units 0..count-1 (items, batches, lookups), up to `concurrency` at once and slower while the
 * service answers 429, starting them in order. Returns each unit's failure. With `stopOnFailure`, the first failure
 * stops further units from starting; those already running finish.
 */
export async function runConcurrently(
	run: object,
	count: number,
	concurrency: number,
	stopOnFailure: boolean,
	work: (unit: number) => Promise<void>,
): Promise<unknown[]> {
	const pace = requestPace.set(run, new Pace(concurrency));
	const failures: unknown[] = new Array(count);
	await runPaced(count, pace, async (unit) => {
		try {
			await work(unit);
			return 'continue';
		} catch (error) {
			failures[unit] = error ?? new Error('Unknown error');
			return stopOnFailure ? 'stop' : 'continue';
		}
	});
	return failures;
}
