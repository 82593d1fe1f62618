import type { FakeOptions } from './fake-openai.js';

/**
 * What the fake OpenAI-compatible server (fake-openai.ts) answers: the
 * deterministic summary of a prompt, the response bodies of both endpoints
 * and the deterministic embedding.
 */

/** A deterministic embedding: 64 dimensions, each word of the text adds 1 to the dimension its letters hash to. */
export function bagOfWordsVector(text: string): number[] {
  const vector = new Array<number>(64).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 7;
    for (const c of word) h = (h * 31 + c.charCodeAt(0)) % 64;
    vector[h]! += 1;
  }
  return vector;
}

/**
 * The deterministic answer: one bullet per source heading (`### …`) with the
 * first sentence under it (≤ 90 characters), at most six; chat answers get a
 * `## Summary` section, completion answers are first-person prose after `>`.
 */
export function answerFor(prompt: string, endpoint: 'chat' | 'completion'): string {
  const lines = prompt.split('\n');
  const items: string[] = [];
  for (let i = 0; i < lines.length && items.length < 6; i++) {
    const heading = /^###\s+(.+)$/.exec(lines[i]!);
    if (!heading) continue;
    let sentence = '';
    for (let j = i + 1; j < lines.length; j++) {
      const line = lines[j]!.trim();
      if (/^###\s/.test(line)) break;
      if (line === '' || /^#{1,6}\s/.test(line)) continue;
      sentence = line.replace(/^[-*]\s+/, '').replace(/\*\*/g, '');
      break;
    }
    const first = (/^(.*?[.!?])(\s|$)/.exec(sentence)?.[1] ?? sentence).slice(0, 90);
    items.push(`${heading[1]!.slice(0, 60)}: ${first}`);
  }
  if (items.length === 0) items.push('nothing notable');
  // Like a model that follows instructions: items a retry says were lost are put back.
  const keep = /Keep these items, the previous (?:answer|summary) lost them: ([^\n]*)/.exec(prompt);
  if (keep) for (const item of keep[1]!.split('; ')) items.push(`Kept: ${item.replace(/^“|”$/g, '')}`);
  if (endpoint === 'completion') return ` I noted ${items.length} things. ${items.map((item) => `I remember ${item}`).join(' ')}`;
  return `## Summary\n\n${items.map((item) => `- ${item}`).join('\n')}`;
}

/** The body of a chat or completion response carrying `text`, with usage counted from the lengths (unless turned off). */
export function completionBody(
  endpoint: 'chat' | 'completion',
  request: any,
  prompt: string,
  text: string,
  finish: string,
  options: FakeOptions,
): unknown {
  const usage =
    options.usage === false
      ? undefined
      : {
          prompt_tokens: Math.ceil(prompt.length / 4),
          completion_tokens: Math.ceil(text.length / 4),
          total_tokens: Math.ceil(prompt.length / 4) + Math.ceil(text.length / 4),
        };
  const model = String(request.model ?? options.model ?? 'fake-model');
  if (endpoint === 'chat') {
    return {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: finish, logprobs: null }],
      ...(usage ? { usage } : {}),
    };
  }
  return {
    id: 'cmpl-fake',
    object: 'text_completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, text, finish_reason: finish, logprobs: null }],
    ...(usage ? { usage } : {}),
  };
}
