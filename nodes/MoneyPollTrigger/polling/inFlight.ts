import type { IPollFunctions } from 'n8n-workflow';

import { stateKey } from './state';

/**
 * The polls of this n8n process under way, per workflow static data (one per activated workflow)
 * and trigger. n8n starts a poll on every tick of every Poll Times entry without waiting for the
 * previous one: two entries on the same minute, or a poll that outlasts its interval (a Retry-After
 * is waited for inside it). Two such polls would load the same state and emit the same events.
 */
const underWay = new WeakMap<object, Set<string>>();

/**
 * Claims the trigger's poll synchronously, before any await. Returns the release to call when the
 * poll ends, or null when another poll of the same trigger is under way (this one must do nothing:
 * the next poll continues from what that one saves).
 */
export function claimPoll(context: IPollFunctions): (() => void) | null {
	const workflowData = context.getWorkflowStaticData('global');
	const key = stateKey(context.getNode());
	let claimed = underWay.get(workflowData);
	if (!claimed) {
		claimed = new Set();
		underWay.set(workflowData, claimed);
	}
	if (claimed.has(key)) return null;
	const claims = claimed;
	claims.add(key);
	return () => {
		claims.delete(key);
	};
}
