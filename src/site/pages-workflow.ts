/**
 * `memvault init --pages`: a second job of the nightly workflow that publishes `memvault site` to GitHub Pages once
 * the rollup is pushed. It checks out the branch again (the rollup's commit included), installs the same memvault,
 * writes the site and deploys it with GitHub's own Pages actions. In the repository's settings, Pages must be set to
 * "GitHub Actions" as its source. With `--pr` the rollup waits in a pull request, so the site shows the branch as
 * it is (without tonight's rollup until the pull request is merged).
 */
/** `install`: the npm spec the rollup job installs memvault from (the same memvault writes the site); `node`: its Node.js. */
export function pagesDeployJob(install: string, node: number): string {
  return `
  pages:
    needs: rollup
    runs-on: ubuntu-latest
    timeout-minutes: 20
    permissions:
      contents: read
      pages: write # publish the site
      id-token: write # prove to Pages where the deployment comes from
    environment:
      name: github-pages
      url: \${{ steps.deploy.outputs.page_url }}
    env:
      MEMVAULT_INSTALL: ${JSON.stringify(install)}
    steps:
      - uses: actions/checkout@v4
        with:
          ref: \${{ github.ref }} # the branch as the rollup left it, not the commit the run started from
          fetch-depth: 0 # each memory page lists the commits that touched it

      - uses: actions/setup-node@v4
        with:
          node-version: ${node}

      - name: Install memvault
        run: |
          tarball="$(npm pack --silent --pack-destination "$RUNNER_TEMP" "$MEMVAULT_INSTALL" | tail -n 1)"
          npm install --global --no-audit --no-fund "$RUNNER_TEMP/$tarball"

      - name: Write the site
        run: memvault site --out site # inside the checkout: memvault writes nowhere else

      - uses: actions/upload-pages-artifact@v3
        with:
          path: site

      - id: deploy
        uses: actions/deploy-pages@v4
`;
}
