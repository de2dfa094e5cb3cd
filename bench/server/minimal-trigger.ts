/**
 * The smallest community webhook trigger, as a package the bench writes and installs beside the
 * pack: no verification, no memory, the request body as its one item. It is the floor of what any
 * community trigger costs in n8n (the expression isolate n8n builds for every trigger but its own
 * Webhook node, the execution's writes), so `webhook_ingestion_vs_minimal_trigger` is the Money
 * Trigger's own work. Type version 2, as the Money Trigger's, so n8n evaluates no Webhook v1
 * expression for either (docs/decisions.md#d10).
 */

import * as fs from 'node:fs';
import * as path from 'node:path';


export const MINIMAL_PACKAGE = 'n8n-nodes-minimal-trigger';

const NODE_SOURCE = `'use strict';
class MinimalTrigger {
	constructor() {
		this.description = {
			displayName: 'Minimal Trigger',
			name: 'minimalTrigger',
			group: ['trigger'],
			version: 2,
			description: 'Starts the workflow with the request body',
			defaults: { name: 'Minimal Trigger' },
			inputs: [],
			outputs: ['main'],
			webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', responseData: 'noData', path: 'minimal' }],
			properties: [],
		};
	}
	async webhook() {
		return { workflowData: [this.helpers.returnJsonArray([this.getBodyData()])] };
	}
}
module.exports = { MinimalTrigger };
`;

/** Writes the package (package.json and its one built file) into `directory`; returns it. */
export function writeMinimalTrigger(directory: string): string {
	fs.mkdirSync(path.join(directory, 'dist'), { recursive: true });
	fs.writeFileSync(path.join(directory, 'dist', 'MinimalTrigger.node.js'), NODE_SOURCE);
	const pkg = {
		name: MINIMAL_PACKAGE,
		version: '1.0.0',
		keywords: ['n8n-community-node-package'],
		main: 'dist/MinimalTrigger.node.js',
		n8n: { n8nNodesApiVersion: 1, nodes: ['dist/MinimalTrigger.node.js'] },
	};
	fs.writeFileSync(path.join(directory, 'package.json'), JSON.stringify(pkg, null, 2));
	return directory;
}
