# A release tool's and a bot's day with octokit.rb (Debian's ruby-octokit 4.20), against repohost's /api/v3.
#
# Run by test/github/octokit-rb.test.ts: ruby workflow.rb <api base url> <token> <folder for a file> <reviewer's token>
# <CI's token> (the reviewer is bob, whom the script makes a collaborator; CI's is an app installation's, as GitHub
# takes check runs from apps only). Each step prints `ok <step>`; any failure raises (a
# message and exit status 1).
require 'base64'
require 'octokit'

# octokit.rb 4.20 warns on stderr of the preview media types it sends for checks; the test reads stderr for failures.
ENV['OCTOKIT_SILENT'] = 'true'

base_url, token, folder, reviewer_token, ci_token = ARGV
client = Octokit::Client.new(access_token: token, api_endpoint: "#{base_url}/", per_page: 2, auto_paginate: true)
reviewer = Octokit::Client.new(access_token: reviewer_token, api_endpoint: "#{base_url}/")
ci = Octokit::Client.new(access_token: ci_token, api_endpoint: "#{base_url}/")

def ok(step)
  puts "ok #{step}"
  $stdout.flush
end

def check(condition, message)
  raise message unless condition
end

me = client.user
check(me.login == 'alice', me.login)
check(client.root.rels[:current_user].href.end_with?('/user'), 'root document')
check(client.rate_limit.limit.positive?, 'rate limit')
ok 'user'

repo = client.create_repository('rbrepo', description: 'made by octokit.rb', auto_init: true)
check(repo.full_name == 'alice/rbrepo' && repo.default_branch == 'main', repo.full_name)
name = repo.full_name
client.add_collaborator(name, 'bob', permission: 'push')
check(client.collaborator?(name, 'bob'), 'bob is a collaborator')
check(!client.collaborator?(name, 'nobody'), 'nobody is no collaborator')
ok 'repository'

client.create_contents(name, 'docs/guide.md', 'Add a guide', "# Guide\n")
content = client.contents(name, path: 'docs/guide.md')
check(Base64.decode64(content.content) == "# Guide\n", content.content)
client.update_contents(name, 'docs/guide.md', 'Update the guide', content.sha, "# Guide, v2\n")
check(Base64.decode64(client.contents(name, path: 'docs/guide.md').content) == "# Guide, v2\n", 'updated')
check(client.contents(name, path: 'docs/guide.md', accept: 'application/vnd.github.raw') == "# Guide, v2\n", 'raw contents')
check(client.contents(name, path: 'docs').map(&:path) == ['docs/guide.md'], 'folder')
ok 'contents'

client.add_label(name, 'bug', 'd73a4a')
client.add_label(name, 'docs', '0075ca')
check(client.labels(name).map(&:name).sort == %w[bug docs], 'labels')
check(client.label(name, 'bug').color == 'd73a4a', 'label color')
ok 'labels'

first = client.create_issue(name, 'It breaks', 'Steps', labels: 'bug')
5.times { |number| client.create_issue(name, "Idea #{number}") }
# per_page is 2 and auto_paginate follows the Link headers: six issues over three pages.
check(client.list_issues(name, state: 'all').length == 6, 'paged issues')
check(client.list_issues(name, labels: 'bug').map(&:title) == ['It breaks'], 'issues by label')
client.add_comment(name, first.number, 'Seen it too')
check(client.issue_comments(name, first.number).map(&:body) == ['Seen it too'], 'comments')
client.close_issue(name, first.number)
check(client.list_issues(name, state: 'closed', creator: 'alice').map(&:title) == ['It breaks'], 'closed by creator')
# octokit.rb sends the labels as a bare JSON array.
client.add_labels_to_an_issue(name, first.number, ['docs'])
check(client.labels_for_issue(name, first.number).map(&:name).sort == %w[bug docs], 'issue labels')
ok 'issues'

main = client.branch(name, 'main')
client.create_ref(name, 'heads/topic', main.commit.sha)
client.create_contents(name, 'topic.txt', 'Topic work', "topic\n", branch: 'topic')
pull = client.create_pull_request(name, 'main', 'topic', 'Add the topic', 'Please')
check(client.pull_request_files(name, pull.number).map(&:filename) == ['topic.txt'], 'pull request files')
check(client.pull_request_commits(name, pull.number).length == 1, 'pull request commits')
ok 'pull request'

head = pull.head.sha
client.create_status(name, head, 'success', context: 'ci/rb', target_url: 'https://ci.example.com/1', description: 'green')
check(client.statuses(name, head).map(&:context) == ['ci/rb'], 'statuses')
check(client.combined_status(name, head).state == 'success', 'combined status')
ok 'statuses'

run = ci.create_check_run(name, 'ci/lint', head, status: 'completed', conclusion: 'success', output: { title: 'Lint', summary: 'No problems' })
check(run.conclusion == 'success' && run.output.title == 'Lint', run.conclusion)
check(client.check_runs_for_ref(name, head).check_runs.map(&:name) == ['ci/lint'], 'check runs')
check(client.check_suites_for_ref(name, head).check_suites.map(&:conclusion) == ['success'], 'check suites')
ok 'checks'

client.request_pull_request_review(name, pull.number, reviewers: ['bob'])
check(client.pull_request_review_requests(name, pull.number).users.map(&:login) == ['bob'], 'review requests')
reviewer.create_pull_request_review(name, pull.number, event: 'APPROVE', body: 'Looks good')
check(client.pull_request_reviews(name, pull.number).map { |review| [review.user.login, review.state] } == [%w[bob APPROVED]], 'reviews')
ok 'review'

# As on GitHub, protect_branch must be given required_pull_request_reviews (octokit.rb leaves it out otherwise).
begin
  client.protect_branch(name, 'main', required_status_checks: { strict: false, contexts: ['ci/rb'] }, enforce_admins: false)
  raise 'a protection without required_pull_request_reviews was accepted'
rescue Octokit::UnprocessableEntity => error
  check(error.message.include?('"required_pull_request_reviews" wasn\'t supplied'), error.message)
end
client.protect_branch(name, 'main', required_status_checks: { strict: false, contexts: ['ci/rb'] }, enforce_admins: false, required_pull_request_reviews: nil)
check(client.branch_protection(name, 'main').required_status_checks.contexts == ['ci/rb'], 'protection')
check(client.branch(name, 'main').protected, 'protected')
ok 'branch protection'

merged = client.merge_pull_request(name, pull.number, 'Merge the topic', merge_method: 'merge')
check(merged.merged, merged.message)
check(client.pull_merged?(name, pull.number), 'merged')
ok 'merge'

release = client.create_release(name, 'v1.0.0', name: 'First', body: 'Notes')
path = File.join(folder, 'app.txt')
File.write(path, "the app\n")
asset = client.upload_asset(release.url, path, content_type: 'text/plain', name: 'app.txt')
check(asset.name == 'app.txt' && asset.size == 8, asset.name)
check(client.release_assets(release.url).map(&:name) == ['app.txt'], 'assets')
check(client.latest_release(name).tag_name == 'v1.0.0', 'latest release')
check(client.release_for_tag(name, 'v1.0.0').id == release.id, 'release by tag')
client.update_release(release.url, name: 'First, final')
check(client.release(release.url).name == 'First, final', 'updated release')
ok 'releases'

begin
  client.add_label(name, 'bug', 'd73a4a')
  raise 'a second label of one name was accepted'
rescue Octokit::UnprocessableEntity => error
  check(error.errors.first[:code] == 'already_exists', error.message)
end
begin
  client.repository('alice/no-such-repository')
  raise 'a missing repository was found'
rescue Octokit::NotFound
  nil
end
ok 'errors'
