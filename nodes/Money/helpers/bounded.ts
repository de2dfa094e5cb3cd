/**
 * Runs `task` for indexes 0 to count - 1, at most `limit` at a time, in index order. The first
 * failure (by index) is thrown once the tasks under way end; no task starts after a failure or
 * once `signal` is aborted.
 */
export async function runBounded(count: number, limit: number, task: (index: number) => Promise<void>, signal?: AbortSignal): Promise<void> {
	let next = 0;
	const failures: Array<{ index: number; error: unknown }> = [];
	const worker = async () => {
		while (failures.length === 0 && next < count && !signal?.aborted) {
			const index = next++;
			try {
				await task(index);
			} catch (error) {
				failures.push({ index, error });
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
	if (failures.length > 0) {
		failures.sort((a, b) => a.index - b.index);
		throw failures[0].error;
	}
}
