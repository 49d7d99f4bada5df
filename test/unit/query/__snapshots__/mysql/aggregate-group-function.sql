select year(`t1`.`published`) as `c0`, `t1`.`status` as `c1`, count(*) as `c2`
from `articles` as `t1`
where `t1`.`views` > ?
group by year(`t1`.`published`), `t1`.`status`
order by `c2` desc
limit ?
-- values: [0,5]
