#!/usr/bin/env python3
"""Tally zero-config Maven builds: per history, candidates (instances that reached
validation), confirmed, each rejection reason, environment + infrastructure rejections,
environments of the kept instances and the JDKs they ran on; all commits and those
after 2016; with --cache DIR (the builds' HUNKGEN_CACHE_DIR), how many of the kept
instances' environments went online to resolve, how many started from another
environment's repository (binaries before pools), and how many local repositories they
use (a pool shared by many keys counts once; an environment with its own repository
counts once). Usage: tally.py [--cache DIR] OUT_DIR NAME... (OUT_DIR/<name>
is each build's output; repos/<name> its clone, for the commit dates)."""
import json,collections,sys,os,subprocess
HERE=os.path.dirname(os.path.abspath(__file__))
ARGS=sys.argv[1:]
CACHE=None
if ARGS[:1]==['--cache']:
    CACHE=ARGS[1]; ARGS=ARGS[2:]
OUT=ARGS[0]
ENV={'environment','dependency_unresolvable','unsupported_jdk','build_tool_unavailable','compile_error','test_compile_error','zero_tests','infrastructure','no_test_suite','base_tree','timeout','unsupported_python'}
def year(n,iid):
    sha=iid.rsplit('-',1)[1]
    out=subprocess.run(['git','-C',os.path.join(HERE, 'repos', n),'show','-s','--format=%cI',sha],capture_output=True,text=True).stdout.strip()
    return int(out[:4]) if out else 0
rows=[]
for n in ARGS[1:]:
    d=os.path.join(OUT, n)
    if not os.path.exists(d+'/instances.jsonl'): print(n,'not finished'); continue
    k=[json.loads(l) for l in open(d+'/instances.jsonl')]
    r=[json.loads(l) for l in open(d+'/rejected.jsonl')]
    v=[x for x in r if x['stage']=='validate']
    for when,sel in (('all',lambda y:True),('after 2016',lambda y:y>2016)):
        kk=[x for x in k if sel(year(n,x['instance_id']))]
        vv=[x for x in v if sel(year(n,x['id']))]
        c=collections.Counter(x['reason'] for x in vv)
        cand=len(kk)+len(vv)
        envinf=sum(c[x] for x in ENV)
        envs=set(e for x in kk for e in x['validation']['environments'])
        jdks=collections.Counter(x['validation']['maven']['jdk'].split('.')[0] for x in kk)
        mavens=collections.Counter(x['validation']['maven']['maven'].split(' (')[0] for x in kk)
        online=sum(1 for e in envs if CACHE and os.path.exists(os.path.join(CACHE,'envs','logs',f"maven-resolve-{e.rsplit('-',1)[1]}-online.log")))
        started=0
        repos=set()
        for e in envs if CACHE else []:
            d=os.path.join(CACHE,'envs',e)
            f=os.path.join(d,'started_from')
            started+=os.path.exists(f) and os.path.getsize(f)>0
            repos.add(os.path.realpath(os.path.join(d,'repository')))
        print(f"{n} [{when}] candidates {cand} confirmed {len(kk)} reasons {dict(c)} env+infra {envinf}/{cand} envs(kept) {len(envs)} online {online} from-sibling {started} local-repositories {len(repos)} jdks {dict(jdks)} maven {dict(mavens)}")
