/** One measured run: wall time and how far the process's peak memory rose above where it stood before. */
export interface Measurement<T> {
	result: T;
	wallMs: number;
	/** CPU time this process spent during the run (user + system). */
	cpuMs: number;
	/** Peak resident memory during the run minus resident memory just before it, in bytes. */
	peakMemoryGrowth: number;
}

function collectGarbage(): void {
	(globalThis as { gc?: () => void }).gc?.();
}

/**
 * Runs `work` once and measures it. Peak memory comes from the OS's high-water mark (maxRSS), so short spikes count
 * too; it is only meaningful while the run goes higher than anything before it, which a fresh process and garbage
 * collection before each run make likely — the figures say "at most" in that sense.
 */
export async function measure<T>(work: () => Promise<T>): Promise<Measurement<T>> {
	collectGarbage();
	const rssBefore = process.memoryUsage().rss;
	let peak = rssBefore;
	const sampler = setInterval(() => {
		peak = Math.max(peak, process.memoryUsage().rss);
	}, 5);
	const started = process.hrtime.bigint();
	const cpuBefore = process.cpuUsage();
	try {
		const result = await work();
		const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
		const cpu = process.cpuUsage(cpuBefore);
		const cpuMs = (cpu.user + cpu.system) / 1000;
		peak = Math.max(peak, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
		return { result, wallMs, cpuMs, peakMemoryGrowth: Math.max(0, peak - rssBefore) };
	} finally {
		clearInterval(sampler);
	}
}

export const MiB = 1024 * 1024;
