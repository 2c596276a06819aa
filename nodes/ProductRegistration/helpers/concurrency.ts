/**
 * Runs `work` for units 0..count-1 (items, batches, lookups), up to `concurrency` at once, starting them in order, and
 * returns each unit's failure. With `stopOnFailure`, the first failure stops further units from starting; those
 * already running finish. (How fast their requests may go is the service's pace: see transport/pace/.)
 */
export async function runConcurrently(
	count: number,
	concurrency: number,
	stopOnFailure: boolean,
	work: (unit: number) => Promise<void>,
): Promise<unknown[]> {
	const failures: unknown[] = new Array(count);
	let next = 0;
	let stopped = false;
	const worker = async () => {
		while (!stopped && next < count) {
			const unit = next++;
			try {
				await work(unit);
			} catch (error) {
				failures[unit] = error ?? new Error('Unknown error');
				if (stopOnFailure) stopped = true;
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
	return failures;
}
