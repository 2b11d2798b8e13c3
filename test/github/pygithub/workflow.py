"""A release tool's and a bot's day with PyGithub (Debian's python3-github), against repohost's /api/v3.

Run by test/github/pygithub.test.ts: python3 workflow.py <api base url> <token> <folder for a file> <reviewer's token>
<CI's token> (the reviewer is bob, whom the script makes a collaborator; CI's is an app installation's, as GitHub
takes check runs from apps only).
Each step prints `ok <step>`; any failure raises (a traceback and exit status 1).
"""
import os
import sys

from github import Github, GithubException

base_url, token, folder, reviewer_token, ci_token = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
gh = Github(base_url=base_url, login_or_token=token, per_page=2)
reviewer = Github(base_url=base_url, login_or_token=reviewer_token)
ci = Github(base_url=base_url, login_or_token=ci_token)


def ok(step):
    print(f"ok {step}", flush=True)


me = gh.get_user()
assert me.login == "alice", me.login
ok("user")

repo = me.create_repo("pyrepo", description="made by PyGithub", auto_init=True)
assert repo.full_name == "alice/pyrepo" and repo.default_branch == "main", (repo.full_name, repo.default_branch)
repo = gh.get_repo("alice/pyrepo")
repo.add_to_collaborators("bob", "push")
assert repo.has_in_collaborators("bob")
ok("repository")

created = repo.create_file("docs/guide.md", "Add a guide", "# Guide\n")
content = repo.get_contents("docs/guide.md")
assert content.decoded_content == b"# Guide\n", content.decoded_content
repo.update_file("docs/guide.md", "Update the guide", "# Guide, v2\n", content.sha)
assert repo.get_contents("docs/guide.md").decoded_content == b"# Guide, v2\n"
assert [entry.path for entry in repo.get_contents("docs")] == ["docs/guide.md"]
ok("contents")

bug = repo.create_label("bug", "d73a4a", "Something is broken")
repo.create_label("docs", "0075ca")
assert sorted(label.name for label in repo.get_labels()) == ["bug", "docs"]
assert repo.get_label("bug").color == "d73a4a"
ok("labels")

first = repo.create_issue("It breaks", body="Steps", labels=["bug"])
for number in range(5):
    repo.create_issue(f"Idea {number}")
assert [issue.title for issue in repo.get_issues(state="open", labels=[bug])] == ["It breaks"]
# Paging: per_page is 2, so six issues take three pages, which PyGithub follows through Link headers.
everything = list(repo.get_issues(state="all"))
assert len(everything) == 6, len(everything)
assert repo.get_issues(state="all").totalCount == 6
first.create_comment("Seen it too")
assert [comment.body for comment in first.get_comments()] == ["Seen it too"]
first.edit(state="closed")
assert [issue.title for issue in repo.get_issues(state="closed")] == ["It breaks"]
assert [issue.title for issue in repo.get_issues(creator="alice", state="closed")] == ["It breaks"]
first.add_to_labels("docs")
assert sorted(label.name for label in repo.get_issue(first.number).labels) == ["bug", "docs"]
ok("issues")

main = repo.get_branch("main")
repo.create_git_ref("refs/heads/topic", main.commit.sha)
repo.create_file("topic.txt", "Topic work", "topic\n", branch="topic")
pull = repo.create_pull(title="Add the topic", body="Please", head="topic", base="main")
assert pull.mergeable in (True, None), pull.mergeable
assert [changed.filename for changed in pull.get_files()] == ["topic.txt"]
assert pull.get_commits().totalCount == 1
ok("pull request")

head = repo.get_commit(pull.head.sha)
head.create_status("success", target_url="https://ci.example.com/1", description="green", context="ci/py")
assert [status.context for status in head.get_statuses()] == ["ci/py"]
assert head.get_combined_status().state == "success"
ok("statuses")

run = ci.get_repo("alice/pyrepo", lazy=True).create_check_run(name="ci/lint", head_sha=pull.head.sha, status="completed", conclusion="success", output={"title": "Lint", "summary": "No problems"})
assert run.conclusion == "success" and run.output.title == "Lint", (run.conclusion, run.output.title)
assert [each.name for each in head.get_check_runs()] == ["ci/lint"]
assert [suite.conclusion for suite in head.get_check_suites()] == ["success"]
ok("checks")

pull.create_review_request(reviewers=["bob"])
users, teams = repo.get_pull(pull.number).get_review_requests()
assert [user.login for user in users] == ["bob"] and list(teams) == [], [user.login for user in users]
reviewer.get_repo("alice/pyrepo").get_pull(pull.number).create_review(body="Looks good", event="APPROVE")
assert [(review.user.login, review.state) for review in pull.get_reviews()] == [("bob", "APPROVED")]
ok("review")

main.edit_protection(strict=False, contexts=["ci/py"], enforce_admins=False)
protection = repo.get_branch("main").get_protection()
assert protection.required_status_checks.contexts == ["ci/py"], protection.required_status_checks.contexts
assert repo.get_branch("main").protected
ok("branch protection")

merged = pull.merge(merge_method="merge")
assert merged.merged, merged.message
assert repo.get_pull(pull.number).merged
ok("merge")

release = repo.create_git_release("v1.0.0", "First", "Notes")
path = os.path.join(folder, "app.txt")
with open(path, "wb") as handle:
    handle.write(b"the app\n")
asset = release.upload_asset(path, label="The app", content_type="text/plain")
assert asset.name == "app.txt" and asset.size == 8, (asset.name, asset.size)
assert [each.name for each in repo.get_release("v1.0.0").get_assets()] == ["app.txt"]
assert repo.get_latest_release().tag_name == "v1.0.0"
assert [each.tag_name for each in repo.get_releases()] == ["v1.0.0"]
release.update_release("First, final", "Final notes")
assert repo.get_release(release.id).title == "First, final"
ok("releases")

try:
    repo.create_label("bug", "d73a4a")
    raise AssertionError("a second label of one name was accepted")
except GithubException as error:
    assert error.status == 422, error.status
ok("errors")
