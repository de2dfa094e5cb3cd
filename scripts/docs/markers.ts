/**
 * Generated text inside hand-written Markdown, between HTML comments that render as nothing:
 *
 *   inline  <!--fig:KEY-->value<!--/fig-->           one figure, e.g. `bench:per_call_vs_floor`
 *   block   <!--figures:NAME-->                      a table or list, on lines of its own
 *           ...
 *           <!--/figures-->
 *
 * `render` replaces what stands between each pair with what the resolver returns for its key;
 * everything outside the markers is left as written. An inline marker and its end stand on one
 * line; a marker written right after a backtick (an example in a code span) is not one. Pure: scripts/docs/figures.ts supplies the
 * resolvers, scripts/docs/write.ts the files.
 */

// A marker right after a backtick is an example in a code span, not a marker.
const INLINE = /(?<!`)<!--fig:([^>\s]+?)-->([^\n]*?)<!--\/fig-->/g;
const BLOCK = /(?<!`)<!--figures:([^>\s]+?)-->\n([\s\S]*?)<!--\/figures-->/g;

export interface Resolvers {
	figure(key: string): string;
	block(name: string): string;
}

/** The keys a document uses, inline and block. */
export function markersIn(text: string): { figures: string[]; blocks: string[] } {
	return { figures: [...text.matchAll(INLINE)].map((m) => m[1]), blocks: [...text.matchAll(BLOCK)].map((m) => m[1]) };
}

/** The document with every marker's content regenerated; throws naming the marker a resolver cannot fill. */
export function render(text: string, resolvers: Resolvers): string {
	const withBlocks = text.replace(BLOCK, (_whole, name: string) => {
		const body = resolvers.block(name).replace(/\n*$/, '\n');
		return `<!--figures:${name}-->\n${body}<!--/figures-->`;
	});
	return withBlocks.replace(INLINE, (_whole, key: string) => `<!--fig:${key}-->${resolvers.figure(key)}<!--/fig-->`);
}

/** The lines where `actual` and `expected` first differ, for a failure message. */
export function firstDifference(actual: string, expected: string): string {
	const a = actual.split('\n');
	const e = expected.split('\n');
	for (let i = 0; i < Math.max(a.length, e.length); i++) {
		if (a[i] !== e[i]) return `line ${i + 1}:\n  written:   ${a[i] ?? '(end of file)'}\n  generated: ${e[i] ?? '(end of file)'}`;
	}
	return 'no difference';
}
