import type { ListAnswer } from './listAnswer';
import type { Window } from './listWindows';
import { sameWindow } from './listWindows';

/**
 * Windows in flight at once in a read ahead (pagedList.ts, rule 7), the one read now among them: as many as a create's
 * batches (DEFAULT_BATCH_CONCURRENCY in runOptions.ts), each answer as large as a batch. How fast they go is the
 * service's pace.
 */
export const WINDOWS_IN_FLIGHT = 4;

/**
 * The windows a read asked before their turn (pagedList.ts, rule 7), in the order they follow one another, each with
 * its answer to come (undefined where it failed); and those dropped, which the read waits for before it ends, so that
 * no request of it goes on after it.
 */
export class WindowsAhead {
	private asked: Array<{ window: Window; answer: Promise<ListAnswer | undefined> }> = [];

	private dropped: Array<Promise<unknown>> = [];

	/** The answer asked ahead for `window` where it is the next asked; the ones asked for other windows are dropped. */
	take(window: Window): Promise<ListAnswer | undefined> | undefined {
		const next = this.asked[0];
		if (next !== undefined && !sameWindow(next.window, window)) this.drop();
		return this.asked.shift()?.answer;
	}

	/**
	 * Sends, after `current` and those already asked ahead, each window `following` gives for the one before it, until
	 * WINDOWS_IN_FLIGHT are in flight or it gives none.
	 */
	askAfter(
		current: Window,
		following: (window: Window) => Window | undefined,
		send: (window: Window) => Promise<ListAnswer>,
	): void {
		let last = this.asked.at(-1)?.window ?? current;
		while (this.asked.length < WINDOWS_IN_FLIGHT - 1) {
			const window = following(last);
			if (window === undefined) return;
			this.asked.push({ window, answer: send(window).catch(() => undefined) });
			last = window;
		}
	}

	/** Drops the windows still asked ahead, and waits until every request dropped is over. */
	async settle(): Promise<void> {
		this.drop();
		await Promise.allSettled(this.dropped);
	}

	private drop(): void {
		this.dropped.push(...this.asked.map(({ answer }) => answer));
		this.asked = [];
	}
}
