export { createExtractiveSummarizer } from './summarize.js';
