import * as fs from 'node:fs';
import * as path from 'node:path';

import { MoneyTrigger } from '../../../nodes/MoneyTrigger/MoneyTrigger.node';

/**
 * When the Money Trigger forgets a transaction, said the same true way by the README, the trigger's
 * panel and docs/webhook-memory.md: by count (its capacity), never by time
 * (nodes/MoneyTrigger/memory/statuses.ts forgets the least recently changed past 50,000).
 */

const REPO = path.resolve(__dirname, '..', '..', '..');
const FORGOTTEN = 'forgotten once 50,000 other transactions have changed status since its own last change';

function texts(): Record<string, string> {
	const panel = new MoneyTrigger().description.triggerPanel as { executionsHelp: { active: string } };
	const flat = (text: string) => text.replace(/\s+/g, ' ');
	return {
		README: flat(fs.readFileSync(path.join(REPO, 'README.md'), 'utf8')),
		'docs/webhook-memory.md': flat(fs.readFileSync(path.join(REPO, 'docs/webhook-memory.md'), 'utf8')),
		panel: flat(panel.executionsHelp.active),
	};
}

describe('when the Money Trigger forgets a transaction', () => {
	// Before, the README's table said a transaction is forgotten after "more than 72 hours", and the
	// panel that a redelivery is recognised "within 72 hours" only under a condition on 50,000.
	it.each(Object.keys(texts()))('%s says it forgets by count, and never by time', (name) => {
		const text = texts()[name];
		expect(text).toContain(FORGOTTEN);
		expect(text).not.toMatch(/more than 72 hours|within 72 hours|72 hours and 50,000|72 hours, or/);
	});
});
