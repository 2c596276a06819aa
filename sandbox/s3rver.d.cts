// s3rver ships no types; these are the parts the sandbox uses.
declare module 's3rver' {
	import type { Server } from 'node:http';
	import type { AddressInfo } from 'node:net';

	export default class S3rver {
		constructor(options: Record<string, unknown>);
		run(): Promise<AddressInfo>;
		close(): Promise<void>;
		httpServer: Server;
	}
}
