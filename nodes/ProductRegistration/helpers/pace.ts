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
