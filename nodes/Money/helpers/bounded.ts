/**
 * Runs `task` for indexes 0 to count - 1, at most `limit` at a time, in index order. The first task
 * runs alone: n8n fetches the credential's token for a call that finds none, and calls started
 * together would each fetch their own. The first failure (by index) is thrown once the tasks under
 * way end; no task starts after a failure or once `signal` is aborted.
 */
export async function runBounded(count: number, limit: number, task: (index: number) => Promise<void>, signal?: AbortSignal): Promise<void> {
	let next = 0;
	const failures: Array<{ index: number; error: unknown }> = [];
	const worker = async (tasks: number) => {
		for (let started = 0; started < tasks && failures.length === 0 && next < count && !signal?.aborted; started++) {
			const index = next++;
			try {
				await task(index);
			} catch (error) {
				failures.push({ index, error });
			}
		}
	};
	await worker(1);
	await Promise.all(Array.from({ length: Math.min(limit, count) }, async () => await worker(Number.POSITIVE_INFINITY)));
	if (failures.length > 0) {
		failures.sort((a, b) => a.index - b.index);
		throw failures[0].error;
	}
}
