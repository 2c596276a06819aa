import { waitFor } from '../instance.cts';

export const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `condition` holds, asking every 500 ms for at most `ms`. */
export async function waitUntil(what: string, condition: () => boolean | Promise<boolean>, ms: number): Promise<void> {
	await waitFor(what, async () => (await condition()) || undefined, ms);
}
