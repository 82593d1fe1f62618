/**
 * The English list of the `stopword` package, imported from its own source file: the package's entry point holds
 * the lists of 62 languages (237 KB), which every search paid ~25 ms of CPU to compile for these 108 words.
 */
declare module 'stopword/src/stopwords_eng.js' {
  export const eng: string[];
}
