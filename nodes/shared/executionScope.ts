/**
 * State that lives exactly as long as one run of the node: keyed by the run's context object, so it is dropped with
 * it and no other execution sees it. (The pace is the one thing shared across runs, on purpose and per process:
 * transport/pace/servicePace.ts; it only ever changes how fast, never what is sent.)
 */
export function executionScoped<T>(): {
	of(context: object, create: () => T): T;
	peek(context: object): T | undefined;
	set(context: object, state: T): T;
} {
	const states = new WeakMap<object, T>();
	return {
		of(context, create) {
			let state = states.get(context);
			if (state === undefined) {
				state = create();
				states.set(context, state);
			}
			return state;
		},
		peek: (context) => states.get(context),
		set(context, state) {
			states.set(context, state);
			return state;
		},
	};
}
