/** Readers of the Money Trigger memory as n8n stores it in a workflow's static data (docs/webhook-memory.md). */

/**
 * The event ids a Money Trigger memory holds in a workflow's static data (as n8n's API returns it):
 * the memory of every trigger node under `global`, and the older per-node `seenEvents`.
 */
export function storedEventIds(staticData: Record<string, any> | null | undefined): Set<string> {
	const ids = new Set<string>();
	const collect = (seen: unknown) => {
		if (!seen || typeof seen !== 'object') return;
		for (const key of Object.keys(seen)) ids.add(key.startsWith('e:') ? key.slice(2) : key);
	};
	for (const [key, value] of Object.entries(staticData || {})) {
		if (key.startsWith('node:')) collect(value && value.seenEvents);
	}
	const memory = staticData && staticData.global && staticData.global.moneyTriggerMemory;
	for (const nodeMemory of Object.values((memory && memory.nodes) || {})) collect((nodeMemory as { seenEvents?: unknown }).seenEvents);
	return ids;
}
